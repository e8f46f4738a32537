package artifact

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Issue 34.13: the results a run saves are capped all together. A save
// that would pass the cap is refused whole (nothing written, the operator's
// hook told), the results saved before stay readable, and a failed write
// gives its share of the cap back.
func TestStoreCapRefusesPastIt(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run-1")
	s := NewStore(dir)
	var refused []*CapError
	s.LimitSaved(1000, func(e *CapError) { refused = append(refused, e) })
	first, err := s.SaveResult("builtin:shell", "text/plain", make([]byte, 600))
	must(t, err)
	_, err = s.SaveResult("mcp:s:t", "text/plain", make([]byte, 401))
	var ce *CapError
	if !errors.As(err, &ce) || !errors.Is(err, ErrSaveCap) || ce.Size != 401 || ce.Used != 600 || ce.Max != 1000 || ce.Source != "mcp:s:t" {
		t.Fatalf("over the cap: %v (%+v)", err, ce)
	}
	if len(refused) != 1 || refused[0] != ce {
		t.Fatalf("refused hook: %v", refused)
	}
	if _, err := s.SaveResult("builtin:shell", "text/plain", make([]byte, 400)); err != nil {
		t.Fatalf("up to the cap: %v", err)
	}
	entries, err := os.ReadDir(dir)
	must(t, err)
	if len(entries) != 2 {
		t.Fatalf("%d files, want the 2 saved", len(entries))
	}
	if _, ok := s.Lookup(first); !ok {
		t.Fatal("the first result was dropped")
	}
	if got := strings.Join(s.IDs(), ","); got != "result-1,result-2" {
		t.Fatalf("ids %s: a refused save must not take an id", got)
	}
}

func TestStoreCapConcurrentSaves(t *testing.T) {
	t.Parallel()
	s := NewStore(filepath.Join(t.TempDir(), "run-1"))
	s.LimitSaved(10*100, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	saved := 0
	for range 32 {
		wg.Go(func() {
			if _, err := s.SaveResult("s", "text/plain", make([]byte, 100)); err == nil {
				mu.Lock()
				saved++
				mu.Unlock()
			} else if !errors.Is(err, ErrSaveCap) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if saved != 10 {
		t.Fatalf("%d saved, want exactly 10 under the cap", saved)
	}
}

func TestStoreCapFailedWriteGivesBack(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(file, nil, 0o600))
	s := NewStore(filepath.Join(file, "sub")) // a directory that cannot be made
	s.LimitSaved(100, nil)
	for range 3 {
		if _, err := s.SaveResult("s", "text/plain", make([]byte, 60)); err == nil || errors.Is(err, ErrSaveCap) {
			t.Fatalf("want the write error, not the cap: %v", err)
		}
	}
}

// The model learns why a cut result has no artifact, and what to do; no
// path or error text reaches it.
func TestRenderResultOverTheCap(t *testing.T) {
	t.Parallel()
	st := NewStore(filepath.Join(t.TempDir(), "run-1"))
	st.LimitSaved(1500, nil)
	big := []Content{{Type: "text", Text: strings.Repeat("x", 2000)}}
	r, err := RenderResult(big, ResultOptions{Server: "s", Tool: "t", MaxChars: 1000, Store: st})
	must(t, err)
	if r.ArtifactCount != 0 || !strings.Contains(r.Text, "[odek: the whole untruncated result of s__t (2.0 KiB) was not kept: "+
		"this run's saved results are at their cap (0 bytes of 1.5 KiB used), so artifact_read cannot page it") ||
		!strings.Contains(r.Text, "Ask for less at a time") || strings.Contains(r.Text, st.Dir()) {
		t.Fatalf("render:\n%s", r.Text)
	}
}

func TestNotSavedNoticeOtherErrors(t *testing.T) {
	t.Parallel()
	got := NotSavedNotice(errors.New("open /home/me/.odek/artifacts/x: no space left on device"), "shell command's output", 3<<20)
	if got != "[odek: the whole shell command's output (3.0 MiB) could not be saved, so artifact_read cannot page it and only the part above is available.]" {
		t.Fatalf("notice = %q", got)
	}
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1536: "1.5 KiB", 8 << 20: "8.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
