package agentrun

import (
	"bytes"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/exitcode"
)

// The first interrupt cancels the run; the second kills the MCP servers'
// process groups and exits 130 without waiting for anything.
func TestOnInterrupt(t *testing.T) {
	killed := 0
	old := killServers
	killServers = func() []string { killed++; return []string{"fx", "wc"} }
	defer func() { killServers = old }()
	sigs := make(chan os.Signal, 2)
	cancelled := make(chan struct{})
	exited := make(chan int, 1)
	var stderr bytes.Buffer
	done := make(chan struct{})
	go func() {
		OnInterrupt(sigs, func() { close(cancelled) }, &stderr, func(code int) { exited <- code })
		close(done)
	}()
	sigs <- os.Interrupt
	<-cancelled
	if killed != 0 || len(exited) != 0 {
		t.Fatal("the first interrupt killed servers or exited")
	}
	sigs <- syscall.SIGTERM
	if code := <-exited; code != exitcode.Interrupted {
		t.Fatalf("exit %d", code)
	}
	<-done
	if killed != 1 || stderr.String() != "odek: interrupted again; exiting now; killed MCP servers: fx, wc\n" {
		t.Fatalf("killed %d times; stderr %q", killed, stderr.String())
	}
}

// lockedBuffer is a bytes.Buffer two goroutines may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The second interrupt's kills end the first one's shutdown, which waits for
// the same servers: that shutdown must not then report its own stop (nor
// let the run go on to exit), or the user reads both accounts, and a
// script's "! stderr 'stopped MCP servers'" failed about once in a busy
// tree. Here the shutdown finishes inside the kill, the worst moment; it is
// given 200 ms to (wrongly) print before the second interrupt exits.
func TestSecondInterruptOwnsTheExit(t *testing.T) {
	var stderr lockedBuffer
	reported := make(chan struct{})
	old := killServers
	killServers = func() []string {
		go func() { reportStopped(&stderr, []string{"fx"}); close(reported) }()
		select {
		case <-reported:
		case <-time.After(200 * time.Millisecond):
		}
		return []string{"fx"}
	}
	defer func() { killServers = old }()
	sigs := make(chan os.Signal, 2)
	sigs <- os.Interrupt
	sigs <- os.Interrupt
	var atExit string
	OnInterrupt(sigs, func() {}, &stderr, func(int) { atExit = stderr.String() })
	if want := "odek: interrupted again; exiting now; killed MCP servers: fx\n"; atExit != want {
		t.Fatalf("stderr when exiting: %q, want %q", atExit, want)
	}
	<-reported // released once exit returned (only a test's exit does)
}
