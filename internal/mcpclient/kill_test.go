package mcpclient

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"
)

// stubborn starts the fixture in its mode that ignores SIGTERM and stdin
// closing, and returns the client and the server's pid.
func stubborn(t testing.TB, name string) (*Client, int) {
	t.Helper()
	c, err := Connect(context.Background(), name, ServerConfig{Command: fixtureBin, Args: []string{"-root", t.TempDir(), "-stubborn"}},
		Options{Environ: testEnviron})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c, c.conn.t.(*stdioTransport).proc.Pid()
}

// groupGone waits (bounded) for a process group to have no member left.
func groupGone(pid int) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH) {
			return true
		}
		time.Sleep(10 * time.Millisecond) // polling: an empty group is the state waited for
	}
	return false
}

// CloseNow does not wait for a server that ignores stdin closing and
// SIGTERM the way Close does: it kills the group after two short steps.
func TestCloseNowStubbornServer(t *testing.T) {
	t.Parallel()
	c, pid := stubborn(t, "s")
	done := make(chan error, 1)
	go func() { done <- c.CloseNow() }()
	select {
	case <-done:
	case <-time.After(exitGrace): // Close alone would still be waiting here
		t.Fatal("CloseNow waited like Close")
	}
	if !groupGone(pid) {
		t.Fatalf("process group %d alive after CloseNow", pid)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close after CloseNow: %v", err)
	}
}

// Options.InterruptGrace sets each step of CloseNow: a stubborn server is
// waited for twice that long (stdin closed, then SIGTERM) before the kill.
func TestCloseNowInterruptGrace(t *testing.T) {
	t.Parallel()
	const g = 300 * time.Millisecond
	c, err := Connect(context.Background(), "g", ServerConfig{Command: fixtureBin, Args: []string{"-root", t.TempDir(), "-stubborn"}},
		Options{Environ: testEnviron, InterruptGrace: g})
	if err != nil {
		t.Fatal(err)
	}
	pid := c.conn.t.(*stdioTransport).proc.Pid()
	start := time.Now()
	if err := c.CloseNow(); err != nil {
		t.Logf("CloseNow: %v", err) // the kill may be reported; the group must be gone either way
	}
	if d := time.Since(start); d < 2*g {
		t.Errorf("CloseNow took %v, less than two steps of %v", d, g)
	}
	if !groupGone(pid) {
		t.Fatalf("process group %d alive after CloseNow", pid)
	}
}

// A second interrupt kills every server this process started, at once.
func TestKillAll(t *testing.T) {
	a, pa := stubborn(t, "a")
	b, pb := stubborn(t, "b")
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	names := KillAll()
	if !slices.Contains(names, "a") || !slices.Contains(names, "b") {
		t.Fatalf("KillAll = %v", names)
	}
	if !groupGone(pa) || !groupGone(pb) {
		t.Fatal("servers alive after KillAll")
	}
	_ = a.Close()
	_ = b.Close()
	if slices.Contains(KillAll(), "a") {
		t.Fatal("a closed server is still listed")
	}
}

// BenchmarkCloseNowStubborn is the interrupt shutdown of a server that
// ignores stdin closing and SIGTERM: the floor of "the prompt is back".
func BenchmarkCloseNowStubborn(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		c, _ := stubborn(b, "s")
		b.StartTimer()
		_ = c.CloseNow()
	}
}
