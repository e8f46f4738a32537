package subagent

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// keyWatch is a Runner that records whether the parent's copy of the key
// file was still open when the child's stream was first read.
type keyWatch struct {
	Runner
	openAtRead atomic.Int32 // 0 unknown, 1 closed, 2 still open
}

func (k *keyWatch) Start(ctx context.Context, spec Spec) (Process, error) {
	p, err := k.Runner.Start(ctx, spec)
	if err != nil || spec.KeyFile == nil {
		return p, err
	}
	return &keyWatchProc{Process: p, key: spec.KeyFile, w: k}, nil
}

type keyWatchProc struct {
	Process
	key *os.File
	w   *keyWatch
}

func (p *keyWatchProc) Stdout() io.Reader { return &keyWatchReader{r: p.Process.Stdout(), p: p} }

type keyWatchReader struct {
	r io.Reader
	p *keyWatchProc
}

func (r *keyWatchReader) Read(b []byte) (int, error) {
	if r.p.w.openAtRead.Load() == 0 {
		state := int32(2)
		if _, err := r.p.key.Stat(); errors.Is(err, os.ErrClosed) {
			state = 1
		}
		r.p.w.openAtRead.CompareAndSwap(0, state)
	}
	return r.r.Read(b)
}

// TestParentClosesKeyOnceChildHasIt: the parent holds the API key file only
// until the child is started with its own descriptor, not for the child's
// whole run (which may last an hour).
func TestParentClosesKeyOnceChildHasIt(t *testing.T) {
	var kw *keyWatch
	tool, _, _ := newTestTool(t, "key", func(o *Options) {
		o.APIKey = "sk-very-secret-1234"
		kw = &keyWatch{Runner: o.Runner}
		o.Runner = kw
	})
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"key check"}]}`))
	if !strings.Contains(out, "key=sk-very-secret-1234") {
		t.Fatalf("the child did not get the key:\n%s", out)
	}
	if got := kw.openAtRead.Load(); got != 1 {
		t.Fatalf("key file state when the child's stream was read: %d, want 1 (closed)", got)
	}
}
