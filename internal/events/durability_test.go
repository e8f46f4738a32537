package events

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordingFile is a sink file that records the order of its calls.
type recordingFile struct {
	calls    []string
	lines    []string
	writeErr error
	syncErr  error
}

func (f *recordingFile) Write(p []byte) (int, error) {
	f.calls = append(f.calls, "write")
	if f.writeErr != nil {
		return 0, f.writeErr
	}
	f.lines = append(f.lines, string(p))
	return len(p), nil
}

func (f *recordingFile) Sync() error {
	f.calls = append(f.calls, "sync")
	return f.syncErr
}

func (f *recordingFile) Close() error {
	f.calls = append(f.calls, "close")
	return nil
}

// DECISION 1: each line is written and fsync'd before Write returns.
func TestJSONLSyncsEveryLine(t *testing.T) {
	f := &recordingFile{}
	s := newJSONLSink(f)
	for i := range 3 {
		if err := s.Write(sampleEvent()); err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat("write,sync,", i+1)
		if got := strings.Join(f.calls, ",") + ","; got != want {
			t.Fatalf("after write %d: calls %s, want %s", i+1, got, want)
		}
	}
	for _, l := range f.lines {
		if l != sampleLine {
			t.Fatalf("line %q, want one whole line per write", l)
		}
	}
	if err := s.Close(); err != nil || f.calls[len(f.calls)-1] != "close" {
		t.Fatalf("close: %v %v", err, f.calls)
	}
}

func TestJSONLReportsWriteAndSyncErrors(t *testing.T) {
	diskFull, ioErr := errors.New("no space left"), errors.New("I/O error")
	f := &recordingFile{writeErr: diskFull}
	if err := newJSONLSink(f).Write(sampleEvent()); !errors.Is(err, diskFull) {
		t.Fatalf("write error: %v", err)
	}
	if strings.Join(f.calls, ",") != "write" {
		t.Fatalf("calls after a failed write: %v (no sync of a line not written)", f.calls)
	}
	f = &recordingFile{syncErr: ioErr}
	if err := newJSONLSink(f).Write(sampleEvent()); !errors.Is(err, ioErr) {
		t.Fatalf("sync error: %v", err)
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
	beforeOpen = func(p string) {
		swapped = true
		if err := os.Link(victim, p); err != nil {
			t.Error(err)
		}
	}
	defer func() { beforeOpen = func(string) {} }()
	s, err := OpenJSONL(context.Background(), path)
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
