package events

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recordingFile is a sink file that records the order of its calls. The
// syncer calls Sync from its own goroutine; hold, when set, blocks Sync
// until the test sends on it.
type recordingFile struct {
	mu       sync.Mutex
	calls    []string
	lines    []string
	writeErr error
	syncErr  error
	hold     chan struct{}
	entered  chan struct{} // with hold: signalled when a Sync starts
}

func (f *recordingFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "write")
	if f.writeErr != nil {
		return 0, f.writeErr
	}
	f.lines = append(f.lines, string(p))
	return len(p), nil
}

func (f *recordingFile) Sync() error {
	f.mu.Lock()
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		f.entered <- struct{}{}
		<-hold
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "sync")
	return f.syncErr
}

func (f *recordingFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "close")
	return nil
}

func (f *recordingFile) callList() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, ",")
}

// waitSynced returns a hook for the sink's synced and a wait for n calls.
func waitSynced() (hook func(), wait func(t *testing.T, n int)) {
	ch := make(chan struct{}, 100)
	return func() { ch <- struct{}{} }, func(t *testing.T, n int) {
		t.Helper()
		for range n {
			<-ch
		}
	}
}

// Each line is written before Write returns, and fsync'd soon after by the
// syncer, not by Write (DECISION 1 as revised by issue 23).
func TestJSONLWritesEveryLineSyncsInBackground(t *testing.T) {
	f := &recordingFile{}
	s := newJSONLSink(f)
	hook, wait := waitSynced()
	s.synced = hook
	for i := range 3 {
		if err := s.Write(sampleEvent()); err != nil {
			t.Fatal(err)
		}
		wait(t, 1) // the syncer ran for this line
		if got, want := f.callList()+",", strings.Repeat("write,sync,", i+1); got != want {
			t.Fatalf("after write %d: calls %s, want %s", i+1, got, want)
		}
	}
	for _, l := range f.lines {
		if l != sampleLine {
			t.Fatalf("line %q, want one whole line per write", l)
		}
	}
	if err := s.Close(); err != nil || !strings.HasSuffix(f.callList(), "write,sync,close") {
		t.Fatalf("close: %v %v (nothing left to sync)", err, f.callList())
	}
}

// Group commit: lines written while an fsync runs are covered by the next
// one, so ten lines cost two fsyncs, and Close fsyncs what is still dirty
// before it closes the file.
func TestJSONLGroupCommit(t *testing.T) {
	f := &recordingFile{hold: make(chan struct{}), entered: make(chan struct{}, 10)}
	s := newJSONLSink(f)
	hook, wait := waitSynced()
	s.synced = hook
	if err := s.Write(sampleEvent()); err != nil {
		t.Fatal(err)
	}
	<-f.entered // the syncer is inside the first fsync
	for range 9 {
		if err := s.Write(sampleEvent()); err != nil {
			t.Fatal(err)
		}
	}
	f.hold <- struct{}{} // the first fsync (line 1) ends
	<-f.entered          // one more for lines 2-10
	f.hold <- struct{}{}
	wait(t, 2)
	if got := strings.Count(f.callList(), "sync"); got != 2 {
		t.Fatalf("%d fsyncs for 10 lines, want 2: %s", got, f.callList())
	}
	f.mu.Lock()
	f.hold = nil
	f.mu.Unlock()
	if err := s.Write(sampleEvent()); err != nil { // dirty again; Close must sync it
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if calls := f.callList(); !strings.HasSuffix(calls, "write,sync,close") || strings.Count(calls, "write") != 11 {
		t.Fatalf("calls %s: want the last line synced before close", calls)
	}
}

// WriteLast (the run report) is on stable storage when it returns.
func TestJSONLWriteLastSyncs(t *testing.T) {
	f := &recordingFile{}
	s := newJSONLSink(f)
	if err := s.WriteLast(map[string]any{"schema": "odek.run-report/v1"}); err != nil {
		t.Fatal(err)
	}
	if calls := f.callList(); calls != "write,sync,close" && calls != "write,sync,sync,close" {
		t.Fatalf("calls %s", calls)
	}
	if strings.Count(f.callList(), "sync") == 2 {
		t.Log("the syncer took the line before Close did (both fine)")
	}
}

func TestJSONLReportsWriteAndSyncErrors(t *testing.T) {
	diskFull, ioErr := errors.New("no space left"), errors.New("I/O error")
	f := &recordingFile{writeErr: diskFull}
	s := newJSONLSink(f)
	if err := s.Write(sampleEvent()); !errors.Is(err, diskFull) {
		t.Fatalf("write error: %v", err)
	}
	if err := s.Close(); err != nil || f.callList() != "write,close" {
		t.Fatalf("calls after a failed write: %v, %v (no sync of a line not written)", f.callList(), err)
	}
	// A background fsync's failure comes back from the next Write, or Close.
	f = &recordingFile{syncErr: ioErr}
	s = newJSONLSink(f)
	hook, wait := waitSynced()
	s.synced = hook
	err1 := s.Write(sampleEvent()) // nil, or ioErr if the syncer was quicker
	wait(t, 1)
	if err2 := s.Write(sampleEvent()); !errors.Is(err1, ioErr) && !errors.Is(err2, ioErr) {
		t.Fatalf("sync error not returned: %v, %v", err1, err2)
	}
	if err := s.Close(); err != nil && !errors.Is(err, ioErr) || !strings.HasSuffix(f.callList(), "close") {
		t.Fatalf("close: %v, calls %s", err, f.callList())
	}
}

func TestOpenJSONLRefusesHardLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "events.jsonl")
	if err := os.Link(victim, path); err != nil {
		t.Fatal(err)
	}
	s, err := OpenJSONL(context.Background(), path)
	if err == nil {
		_ = s.Close()
		t.Fatal("OpenJSONL wrote to a hard-linked file")
	}
	want := "events-jsonl: refusing to write events to " + path + ": it has 2 hard links"
	if !errors.Is(err, ErrHardLink) || err.Error() != want {
		t.Fatalf("err = %q, want %q", err, want)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" || mode(t, victim) != 0o644 {
		t.Fatal("hard link target was touched")
	}
}

// A hard link made after the Lstat check is still refused, on the descriptor.
func TestOpenJSONLHardLinkSwappedIn(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "events.jsonl")
	swapped := false
	s, err := openJSONL(context.Background(), path, openOptions{beforeOpen: func(p string) {
		swapped = true
		if err := os.Link(victim, p); err != nil {
			t.Error(err)
		}
	}})
	if err == nil {
		_ = s.Close()
		t.Fatal("OpenJSONL wrote to a hard link swapped in")
	}
	if !swapped || !errors.Is(err, ErrHardLink) {
		t.Fatalf("err = %v (swapped %v), want hard link refusal", err, swapped)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" || mode(t, victim) != 0o644 {
		t.Fatal("hard link target was touched")
	}
}
