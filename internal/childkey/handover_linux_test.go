package childkey

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

const testTimeout = 200_000 // µs

// handover runs receive against a parent played by this test: serve gets
// the socket the child sent and does what the case says with it.
func handover(t *testing.T, serve func(t *testing.T, sock int)) (key string, childEnd int, err error) {
	t.Helper()
	p, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	parent, child := p[0], p[1]
	defer syscall.Close(parent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf, oob := make([]byte, 64), make([]byte, syscall.CmsgSpace(4))
		n, oobn, _, _, err := syscall.Recvmsg(parent, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err != nil || string(buf[:n]) != Hello {
			t.Errorf("parent: request %q, %v", buf[:n], err)
			return
		}
		msgs, _ := syscall.ParseSocketControlMessage(oob[:oobn])
		if len(msgs) != 1 {
			t.Errorf("parent: %d control messages", len(msgs))
			return
		}
		fds, _ := syscall.ParseUnixRights(&msgs[0])
		if len(fds) != 1 {
			t.Errorf("parent: %d descriptors", len(fds))
			return
		}
		serve(t, fds[0])
	}()
	key, err = receive(child, syscall.Timeval{Usec: testTimeout})
	<-done
	return key, child, err
}

func send(t *testing.T, sock int, msg string, fds ...int) {
	t.Helper()
	var oob []byte
	if len(fds) > 0 {
		oob = syscall.UnixRights(fds...)
	}
	if err := syscall.Sendmsg(sock, []byte(msg), oob, nil, syscall.MSG_DONTWAIT); err != nil {
		t.Error(err)
	}
}

// TestReceive: the child takes one message, the key, and then the end;
// anything else is refused, and descriptor 3 is closed either way.
func TestReceive(t *testing.T) {
	// wait holds the socket until the child has given up on it.
	wait := func(t *testing.T, sock int) {
		buf := make([]byte, 1)
		_, _, _ = syscall.Recvfrom(sock, buf, 0) // ends when the child closes its end
		_ = syscall.Close(sock)
	}
	tests := []struct {
		name  string
		serve func(t *testing.T, sock int)
		want  string // the key, or the error
	}{
		{"gives", func(t *testing.T, s int) { send(t, s, "sk-abc\n"); syscall.Close(s) }, "sk-abc"},
		{"no key in time", wait, "api key handover: no key from the parent within 200ms"},
		{"closes without a key", func(t *testing.T, s int) { syscall.Close(s) }, "api key handover: the parent sent no key"},
		{"an empty key", func(t *testing.T, s int) { send(t, s, "\r\n"); syscall.Close(s) }, "api key handover: the parent sent an empty key"},
		{"a key too long", func(t *testing.T, s int) { send(t, s, strings.Repeat("k", MaxKeyBytes+1)); syscall.Close(s) },
			"api key handover: the key is longer than 65536 bytes"},
		{"a key with descriptors", func(t *testing.T, s int) { send(t, s, "sk-abc", 0); syscall.Close(s) },
			"api key handover: the parent's message carried descriptors"},
		{"a second message", func(t *testing.T, s int) { send(t, s, "sk-abc"); send(t, s, "sk-def"); syscall.Close(s) },
			"api key handover: a second message after the key"},
		{"no end after the key", func(t *testing.T, s int) { send(t, s, "sk-abc"); wait(t, s) },
			"api key handover: the parent did not close the socket after the key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, child, err := handover(t, tc.serve)
			got := key
			if err != nil {
				got = err.Error()
				if !errors.Is(err, ErrHandover) {
					t.Errorf("%v does not match ErrHandover", err)
				}
			}
			if got != tc.want {
				t.Fatalf("receive = %.80q, want %q", got, tc.want)
			}
			if _, err := fcntl(child); err != syscall.EBADF {
				t.Fatalf("descriptor 3 left open (%v)", err)
			}
		})
	}
}

// TestReceiveLeavesOthersAlone: a descriptor that is not a Unix seqpacket
// socket is not the parent's, and stays as it is.
func TestReceiveLeavesOthersAlone(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	stream, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(stream[0])
	defer syscall.Close(stream[1])
	dgram, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(dgram[0])
	defer syscall.Close(dgram[1])
	tests := []struct {
		name string
		fd   int
		want string
	}{
		{"a pipe", p[0], "api key handover: descriptor 3 is not a socket"},
		{"a stream socket", stream[0], "api key handover: descriptor 3 is not a seqpacket socket"},
		{"a datagram socket", dgram[0], "api key handover: descriptor 3 is not a seqpacket socket"},
		{"nothing", 1 << 20, "api key handover: descriptor 3 is not open"},
	}
	for _, tc := range tests {
		_, err := receive(tc.fd, syscall.Timeval{Usec: testTimeout})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: receive = %v, want %s", tc.name, err, tc.want)
		}
		if _, err := fcntl(tc.fd); tc.fd < 1<<20 && err != nil {
			t.Errorf("%s: closed (%v)", tc.name, err)
		}
	}
}

// TestReceiveParentGone: a parent that is gone cannot be asked.
func TestReceiveParentGone(t *testing.T) {
	p, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.Close(p[0])
	_, err = receive(p[1], syscall.Timeval{Usec: testTimeout})
	if err == nil || !strings.HasPrefix(err.Error(), "api key handover: ask the parent for the key: ") {
		t.Fatalf("receive = %v", err)
	}
}

func fcntl(fd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
