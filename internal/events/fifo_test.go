//go:build unix

package events

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mkfifo(t *testing.T, mode uint32) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.fifo")
	if err := syscall.Mkfifo(path, mode); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}

// readFIFO opens the FIFO for reading on its own goroutine and sends every
// line it reads, closing lines at EOF.
func readFIFO(t *testing.T, path string, opened chan<- struct{}) <-chan string {
	t.Helper()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		f, err := os.Open(path) // blocks until the writer opens, like any consumer
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		if opened != nil {
			close(opened)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// A live consumer reads each event as it is written; a FIFO is hardened to
// 0600 and never fsync'd (fsync on a pipe fails).
func TestJSONLFIFOConcurrentReader(t *testing.T) {
	path := mkfifo(t, 0o644)
	lines := readFIFO(t, path, nil)
	s, err := OpenJSONL(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if s.sync != nil {
		t.Fatal("a FIFO sink fsyncs")
	}
	if m := mode(t, path); m != 0o600 {
		t.Fatalf("FIFO mode %v, want 0600", m)
	}
	for i := range 2 {
		if err := s.Write(sampleEvent()); err != nil {
			t.Fatal(err)
		}
		if got := <-lines; got+"\n" != sampleLine { // read while the sink is still open
			t.Fatalf("line %d = %q", i+1, got)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if extra, ok := <-lines; ok {
		t.Fatalf("unexpected line %q", extra)
	}
}

// A reader that arrives after odek started waiting is found.
func TestJSONLFIFOLateReader(t *testing.T) {
	path := mkfifo(t, 0o600)
	s, err := openJSONL(context.Background(), path, openOptions{beforeOpen: func(string) {
		go func() { time.Sleep(30 * time.Millisecond); readFIFO(t, path, nil) }()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// Without a reader the open neither blocks forever nor succeeds.
func TestJSONLFIFONoReader(t *testing.T) {
	path := mkfifo(t, 0o600)
	_, err := openJSONL(context.Background(), path, openOptions{fifoWait: 50 * time.Millisecond})
	if !errors.Is(err, ErrNoReader) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "start the reader first") {
		t.Fatalf("err = %v, want ErrNoReader naming the path", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := openJSONL(ctx, path, openOptions{fifoWait: time.Hour}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: err = %v", err)
	}
}

// The no-follow rules hold for FIFOs: a symlink to one and a hard-linked
// one are refused, and nothing reaches them.
func TestJSONLFIFORefusals(t *testing.T) {
	path := mkfifo(t, 0o600)
	link := filepath.Join(filepath.Dir(path), "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenJSONL(context.Background(), link); !errors.Is(err, ErrSymlink) {
		t.Fatalf("symlink to a FIFO: err = %v", err)
	}
	hard := filepath.Join(filepath.Dir(path), "hard")
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenJSONL(context.Background(), path); !errors.Is(err, ErrHardLink) {
		t.Fatalf("hard-linked FIFO: err = %v", err)
	}
}
