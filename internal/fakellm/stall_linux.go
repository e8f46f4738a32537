package fakellm

import (
	"fmt"
	"net"
	"sync"
	"syscall"
)

// StalledListener is a TCP address where connecting never completes: a
// listening socket with a backlog of zero that never accepts, its one queue
// slot taken. The kernel drops further SYNs, so a client's connect hangs
// until it gives up (its connect timeout) or Close releases it with a reset.
type StalledListener struct {
	addr string
	fd   int
	fill net.Conn

	once sync.Once
}

// StallConnects opens a StalledListener on 127.0.0.1. It needs Linux, where
// a full accept queue drops SYNs instead of refusing them.
func StallConnects() (*StalledListener, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("fakellm: stalled listener: %w", err)
	}
	sa := &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("fakellm: stalled listener: %w", err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("fakellm: stalled listener: %w", err)
	}
	name, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("fakellm: stalled listener: %w", err)
	}
	l := &StalledListener{addr: fmt.Sprintf("127.0.0.1:%d", name.(*syscall.SockaddrInet4).Port), fd: fd}
	// Take the one slot of the queue, so the next connect stalls.
	if l.fill, err = net.Dial("tcp", l.addr); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("fakellm: stalled listener: %w", err)
	}
	return l, nil
}

// URL is a base URL ending in /v1 that points at the listener.
func (l *StalledListener) URL() string { return "http://" + l.addr + "/v1" }

// Close closes the socket; clients still connecting get an error.
func (l *StalledListener) Close() error {
	l.once.Do(func() {
		l.fill.Close()
		syscall.Close(l.fd)
	})
	return nil
}
