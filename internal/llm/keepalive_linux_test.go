package llm

import (
	"context"
	"net"
	"syscall"
	"testing"
)

// The default transport's connections send TCP keep-alive probes after 30 s
// idle (a provider's long silent generation keeps its connection), not Go's
// 15 s default.
func TestDefaultTransportKeepAlive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1))
		}
	}()
	conn, err := defaultTransport().DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw, err := conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var idle, on int
	var serr error
	if err := raw.Control(func(fd uintptr) {
		if on, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE); serr == nil {
			idle, serr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE)
		}
	}); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	if on != 1 || idle != 30 {
		t.Fatalf("keep-alive on=%d idle=%ds, want on after 30 s", on, idle)
	}
}
