package events

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sampleEvent() *Event {
	return &Event{Schema: Schema, Type: SessionSaved, RunID: fixedRunID,
		Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC), Data: map[string]any{"message_count": 3}}
}

const sampleLine = `{"schema":"odek.event/v1","type":"session_saved","run_id":"` + fixedRunID +
	`","timestamp":"2026-01-02T03:04:05.000006Z","data":{"message_count":3}}` + "\n"

func mustOpen(t *testing.T, path string) *JSONLSink {
	t.Helper()
	s, err := OpenJSONL(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestOpenJSONLRefusals(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr error
	}{
		{"missing parent", filepath.Join(dir, "nope", "e.jsonl"),
			"events-jsonl: parent directory " + filepath.Join(dir, "nope") + " must already exist", ErrNoParentDir},
		{"parent is a file", filepath.Join(victim, "e.jsonl"),
			"events-jsonl: parent directory " + victim + " must already exist", ErrNoParentDir},
		{"symlink", link, "events-jsonl: refusing to write events to symlink " + link, ErrSymlink},
		{"directory", dir, "events-jsonl: " + dir + " is not a regular file or a FIFO", ErrNotRegular},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := OpenJSONL(context.Background(), tc.path)
			if err == nil {
				_ = s.Close()
				t.Fatal("OpenJSONL succeeded")
			}
			if err.Error() != tc.want || !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %q, want %q", err, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" || mode(t, victim) != 0o644 {
		t.Fatal("symlink target was touched")
	}
}

// TestOpenJSONLSymlinkSwappedIn replaces the file with a symlink after the
// Lstat check: O_NOFOLLOW must still refuse it.
func TestOpenJSONLSymlinkSwappedIn(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "events.jsonl")
	swapped := false
	s, err := openJSONL(context.Background(), path, openOptions{beforeOpen: func(p string) {
		swapped = true
		if err := os.Symlink(victim, p); err != nil {
			t.Error(err)
		}
	}})
	if err == nil {
		_ = s.Close()
		t.Fatal("OpenJSONL followed a swapped-in symlink")
	}
	if !swapped || !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v (swapped %v), want symlink refusal", err, swapped)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" || mode(t, victim) != 0o644 {
		t.Fatal("symlink target was touched")
	}
}

func TestJSONLCreateMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.jsonl")
	s := mustOpen(t, path)
	if m := mode(t, path); m != 0o600 {
		t.Fatalf("mode %v, want 0600", m)
	}
	if err := s.Write(sampleEvent()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != sampleLine { // on disk before Close
		t.Fatalf("file = %q", b)
	}
}

func TestJSONLHardensAndAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, path)
	if m := mode(t, path); m != 0o600 {
		t.Fatalf("mode %v, want 0600 after hardening", m)
	}
	for range 2 {
		if err := s.Write(sampleEvent()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n"+sampleLine+sampleLine {
		t.Fatalf("file = %q", b)
	}
	if err := s.Write(sampleEvent()); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Write after Close = %v", err)
	}
}

// TestJSONLWriteFailureReported wires a failing JSONL sink into an emitter:
// the error is reported once and emitting goes on.
func TestJSONLWriteFailureReported(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "e.jsonl"))
	_ = s.Close()
	var reported []error
	e := NewEmitter(Options{Sinks: []Sink{s}, OnSinkError: func(err error) { reported = append(reported, err) }})
	for range 3 {
		e.Emit(RunStarted, 0, "", nil)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(reported) != 1 || !errors.Is(reported[0], os.ErrClosed) {
		t.Fatalf("reported %v, want one os.ErrClosed", reported)
	}
}

func TestJSONLLargeEventBufferReleased(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "e.jsonl"))
	big := sampleEvent()
	big.Data = map[string]any{"blob": strings.Repeat("x", 2*maxKeptBuffer)}
	if err := s.Write(big); err != nil {
		t.Fatal(err)
	}
	if c := s.buf.Cap(); c > maxKeptBuffer {
		t.Fatalf("kept a %d-byte buffer", c)
	}
	if err := s.Write(sampleEvent()); err != nil {
		t.Fatalf("write after trim: %v", err)
	}
}

// A stream sink writes whole lines, never syncs or closes its writer, and
// after WriteLast nothing more gets through.
func TestStreamSinkWriteLast(t *testing.T) {
	f := &recordingFile{}
	s := NewStreamSink(f)
	if err := s.Write(sampleEvent()); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteLast(map[string]string{"schema": "odek.run-report/v1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(sampleEvent()); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Write after WriteLast = %v", err)
	}
	if got := strings.Join(f.calls, ","); got != "write,write" {
		t.Fatalf("calls %s, want two writes and no sync or close", got)
	}
	if f.lines[0] != sampleLine || f.lines[1] != `{"schema":"odek.run-report/v1"}`+"\n" {
		t.Fatalf("lines %q", f.lines)
	}
}
