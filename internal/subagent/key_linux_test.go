package subagent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testKey = "sk-very-secret-1234"

// keyTool is a tool whose children are keyrace children, which take the key
// as odek does (childkey) and describe what they got.
func keyTool(t *testing.T) *Tool {
	t.Helper()
	child := buildKeyrace(t)
	tool, _, _ := newTestTool(t, "", func(o *Options) {
		o.APIKey = testKey
		o.Runner = &LocalRunner{Path: child, Grace: 200 * time.Millisecond}
	})
	return tool
}

// TestToolKeyHandover: the child gets the key through the handover on
// descriptor 3; the key is in neither its environment nor its argv; it was
// told ODEK_API_KEY_FD=3 but nothing it starts is (the variable is gone
// from its environment once taken); descriptor 3 is closed before its own
// code runs; no task or key file is left behind.
func TestToolKeyHandover(t *testing.T) {
	tool := keyTool(t)
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"key check"}]}`))
	sum := sha256.Sum256([]byte(testKey))
	want := "summary: key=" + hex.EncodeToString(sum[:])[:16] + " leak=no fdenv=3 inherited= fd3=closed depth=1"
	if !strings.Contains(out, want) {
		t.Fatalf("want %q in:\n%s", want, out)
	}
	if ents, _ := os.ReadDir(tool.o.TempDir); len(ents) != 0 {
		t.Fatalf("task or key files left behind: %v", ents)
	}
}

// TestParentKeepsNoHandoverSocket: once a child has its key, the parent
// holds no socket of the handover (it would keep the child's descriptor 3
// open, or the key's socket, for the child's whole run). Not parallel: it
// counts this process's sockets.
func TestParentKeepsNoHandoverSocket(t *testing.T) {
	tool := keyTool(t)
	before := sockets(t)
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"a"},{"goal":"b"}]}`))
	if strings.Count(out, "status: success") != 2 {
		t.Fatalf("results:\n%s", out)
	}
	if after := sockets(t); after != before {
		t.Fatalf("%d sockets open before the call, %d after", before, after)
	}
}

// sockets counts this process's open sockets.
func sockets(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(link, "socket:") {
			n++
		}
	}
	return n
}

// TestKeyHandoverBounded: a child that never asks for its key (the shell
// script children ignore descriptor 3) costs the parent KeyTimeout, not
// forever, and is stopped with everything it started; one that exits
// without asking is reported at once.
func TestKeyHandoverBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ mode, want string }{
		{"hang", ") did not ask for its key within 300ms"},
		{"silent", "): descriptor 3 was closed before it asked for its key (did it exit?)"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			tool, _, _ := newTestTool(t, tc.mode, func(o *Options) {
				o.APIKey = testKey
				o.Runner.(*LocalRunner).KeyTimeout = 300 * time.Millisecond
			})
			start := time.Now()
			out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"g"}]}`))
			const prefix = "error: subagent not spawned: subagent: api key handover: the child (pid "
			if !strings.Contains(out, prefix) || !strings.Contains(out, tc.want) {
				t.Fatalf("want %q…%q in:\n%s", prefix, tc.want, out)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}
