package main

import (
	"bytes"
	"os"
	"syscall"
	"testing"
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
		onInterrupt(sigs, func() { close(cancelled) }, &stderr, func(code int) { exited <- code })
		close(done)
	}()
	sigs <- os.Interrupt
	<-cancelled
	if killed != 0 || len(exited) != 0 {
		t.Fatal("the first interrupt killed servers or exited")
	}
	sigs <- syscall.SIGTERM
	if code := <-exited; code != exitInterrupted {
		t.Fatalf("exit %d", code)
	}
	<-done
	if killed != 1 || stderr.String() != "odek: interrupted again; exiting now; killed MCP servers: fx, wc\n" {
		t.Fatalf("killed %d times; stderr %q", killed, stderr.String())
	}
}
