package wire

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/childkey"
)

// The two ends of the handover agree on its constants.
func TestKeyHandoverConstants(t *testing.T) {
	if childkey.EnvFD != EnvAPIKeyFD || childkey.FD != KeyFD || childkey.Hello != keyHello ||
		childkey.MaxKeyBytes != MaxKeyBytes || time.Duration(childkey.Timeout)*time.Second != KeyTimeout {
		t.Fatal("internal/childkey and wire disagree on the handover's constants")
	}
}

// fakeChild plays a child on the offer's child end: send is what it does
// there. The test process is the "child": a socket pair it makes names its
// pid in SO_PEERCRED.
type fakeChild struct {
	t  *testing.T
	fd int // the child's end: descriptor 3 of a real child
}

func newOffer(t *testing.T) (*KeyOffer, *fakeChild) {
	t.Helper()
	o, err := NewKeyOffer()
	if err != nil {
		t.Fatal(err)
	}
	// The child's own copy, as a started child would hold it.
	fd, err := syscall.Dup(int(o.ChildEnd().Fd()))
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeChild{t: t, fd: fd}
	t.Cleanup(func() { o.Close(); c.close() })
	return o, c
}

func (c *fakeChild) close() {
	if c.fd >= 0 {
		_ = syscall.Close(c.fd)
		c.fd = -1
	}
}

// socketPair makes a seqpacket pair in this process.
func socketPair(t *testing.T, typ int) (int, int) {
	t.Helper()
	p, err := syscall.Socketpair(syscall.AF_UNIX, typ|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(p[0]); _ = syscall.Close(p[1]) })
	return p[0], p[1]
}

// ask sends payload with fds over the child's end.
func (c *fakeChild) ask(payload string, fds ...int) {
	c.t.Helper()
	var oob []byte
	if len(fds) > 0 {
		oob = syscall.UnixRights(fds...)
	}
	if err := syscall.Sendmsg(c.fd, []byte(payload), oob, nil, syscall.MSG_DONTWAIT); err != nil {
		c.t.Fatal(err)
	}
}

// readAll reads what arrived on fd, without waiting for more than the end.
func readAll(t *testing.T, fd int) string {
	t.Helper()
	_ = syscall.SetNonblock(fd, true)
	var got []byte
	buf := make([]byte, MaxKeyBytes+1)
	for {
		n, _, _, _, err := syscall.Recvmsg(fd, buf, nil, 0)
		if err != nil || n == 0 {
			return string(got)
		}
		got = append(got, buf[:n]...)
	}
}

func TestKeyOfferGives(t *testing.T) {
	o, c := newOffer(t)
	mine, theirs := socketPair(t, syscall.SOCK_SEQPACKET)
	c.ask(keyHello, theirs)
	c.close()
	if err := o.Give(context.Background(), os.Getpid(), "sk-123", time.Second); err != nil {
		t.Fatal(err)
	}
	_ = syscall.Close(theirs) // the parent closed its copy: the key and then the end
	if got := readAll(t, mine); got != "sk-123" {
		t.Fatalf("the child read %q", got)
	}
	if o.conn != nil || o.child != nil {
		t.Fatal("Give left the offer's descriptors open")
	}
}

// TestKeyOfferRefuses: the parent writes the key nowhere but into a
// seqpacket socket made by the child, asked for once, in time.
func TestKeyOfferRefuses(t *testing.T) {
	pipe := func(t *testing.T) int {
		var p [2]int
		if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Close(p[0]); _ = syscall.Close(p[1]) })
		return p[1]
	}
	tests := []struct {
		name string
		pid  int // the child's pid; 0 = this process's
		act  func(t *testing.T, c *fakeChild) (mine int)
		want string
	}{
		{"wrong peer pid", 1, func(t *testing.T, c *fakeChild) int {
			mine, theirs := socketPair(t, syscall.SOCK_SEQPACKET)
			c.ask(keyHello, theirs)
			return mine
		}, "api key handover: the socket sent on descriptor 3 was made by pid " + itoa(os.Getpid()) + " (uid " + itoa(os.Geteuid()) + "), not by the child (pid 1): another process holds the child's descriptor 3"},
		{"no message", 0, func(t *testing.T, c *fakeChild) int { c.close(); return -1 },
			"api key handover: the child (pid " + itoa(os.Getpid()) + "): descriptor 3 was closed before it asked for its key (did it exit?)"},
		{"no message in time", 0, func(t *testing.T, c *fakeChild) int { return -1 },
			"api key handover: the child (pid " + itoa(os.Getpid()) + ") did not ask for its key within 200ms"},
		{"not a socket", 0, func(t *testing.T, c *fakeChild) int { c.ask(keyHello, pipe(t)); return -1 },
			"api key handover: the descriptor sent on descriptor 3 is not a socket"},
		{"a stream socket", 0, func(t *testing.T, c *fakeChild) int {
			mine, theirs := socketPair(t, syscall.SOCK_STREAM)
			c.ask(keyHello, theirs)
			return mine
		}, "api key handover: the socket sent on descriptor 3 is not a seqpacket socket"},
		{"a second message", 0, func(t *testing.T, c *fakeChild) int {
			mine, theirs := socketPair(t, syscall.SOCK_SEQPACKET)
			c.ask(keyHello, theirs)
			c.ask(keyHello)
			return mine
		}, "api key handover: a second message on descriptor 3: another process holds the child's descriptor 3"},
		{"no descriptor", 0, func(t *testing.T, c *fakeChild) int { c.ask(keyHello); return -1 },
			"api key handover: the child (pid " + itoa(os.Getpid()) + "): the request on descriptor 3 carries 0 descriptors, not 1"},
		{"two descriptors", 0, func(t *testing.T, c *fakeChild) int {
			mine, theirs := socketPair(t, syscall.SOCK_SEQPACKET)
			c.ask(keyHello, theirs, theirs)
			return mine
		}, "api key handover: the child (pid " + itoa(os.Getpid()) + "): the request on descriptor 3 carries 2 descriptors, not 1"},
		{"another request", 0, func(t *testing.T, c *fakeChild) int {
			mine, theirs := socketPair(t, syscall.SOCK_SEQPACKET)
			c.ask("odek-key/2", theirs)
			return mine
		}, `api key handover: the child (pid ` + itoa(os.Getpid()) + `): the request on descriptor 3 is "odek-key/2", not "odek-key/1"`},
		{"a long request", 0, func(t *testing.T, c *fakeChild) int {
			mine, theirs := socketPair(t, syscall.SOCK_SEQPACKET)
			c.ask(keyHello+"and more", theirs)
			return mine
		}, "api key handover: the child (pid " + itoa(os.Getpid()) + "): the request on descriptor 3 is too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, c := newOffer(t)
			mine := tc.act(t, c)
			pid := tc.pid
			if pid == 0 {
				pid = os.Getpid()
			}
			before := openFDs(t)
			err := o.Give(context.Background(), pid, "sk-123", 200*time.Millisecond)
			if err == nil || err.Error() != tc.want || !errors.Is(err, ErrKeyFD) {
				t.Fatalf("Give = %v\nwant %s", err, tc.want)
			}
			if mine >= 0 {
				if got := readAll(t, mine); got != "" {
					t.Fatalf("the key went into a refused socket: %q", got)
				}
			}
			if after := openFDs(t); after > before {
				t.Fatalf("%d descriptors open before Give, %d after: a refused one was kept", before, after)
			}
		})
	}
}

// TestKeyOfferStopsWithContext: a cancelled call stops waiting at once.
func TestKeyOfferStopsWithContext(t *testing.T) {
	o, _ := newOffer(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.Give(ctx, os.Getpid(), "sk-123", time.Hour) }()
	cancel(errors.New("run interrupted"))
	err := <-done
	if err == nil || err.Error() != "api key handover: run interrupted" {
		t.Fatalf("Give = %v", err)
	}
}

// TestKeyOfferRefusesKey: a key the child would refuse is not offered.
func TestKeyOfferRefusesKey(t *testing.T) {
	for _, key := range []string{"", strings.Repeat("k", MaxKeyBytes+1)} {
		o, _ := newOffer(t)
		err := o.Give(context.Background(), os.Getpid(), key, time.Second)
		if err == nil || !strings.Contains(err.Error(), "the key is empty or longer than 65536 bytes") {
			t.Fatalf("Give(%d bytes) = %v", len(key), err)
		}
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func itoa(n int) string { return strconv.Itoa(n) }

// FuzzKeyRequest: a child's request (the bytes, how many descriptors came
// with it, recvmsg's flags) passes only when it is the hello with one
// descriptor, whole; a refusal's message stays short whatever was sent.
func FuzzKeyRequest(f *testing.F) {
	f.Add([]byte(keyHello), 1, 0)
	f.Add([]byte(""), 0, 0)
	f.Add([]byte(keyHello), 2, 0)
	f.Add([]byte("odek-key/2\x00\x1b[2J"), 1, syscall.MSG_TRUNC)
	f.Fuzz(func(t *testing.T, payload []byte, nfds, flags int) {
		err := checkRequest(payload, nfds, flags)
		whole := flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) == 0
		if ok := string(payload) == keyHello && nfds == 1 && whole; (err == nil) != ok {
			t.Fatalf("checkRequest(%q, %d, %#x) = %v", payload, nfds, flags, err)
		}
		if err != nil && len(err.Error()) > 200 {
			t.Fatalf("a %d-byte message for a %d-byte request", len(err.Error()), len(payload))
		}
	})
}

// BenchmarkKeyHandover is one whole handover in this process, a goroutine
// playing the child with the system calls childkey makes (a socket pair,
// the request, the key, the end): what the protocol itself costs both
// sides, without the exec around it.
func BenchmarkKeyHandover(b *testing.B) {
	for b.Loop() {
		o, err := NewKeyOffer()
		if err != nil {
			b.Fatal(err)
		}
		fd3, err := syscall.Dup(int(o.ChildEnd().Fd()))
		if err != nil {
			b.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			p, _ := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
			_ = syscall.Sendmsg(fd3, []byte(keyHello), syscall.UnixRights(p[1]), nil, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
			_ = syscall.Close(p[1])
			_ = syscall.Close(fd3)
			buf := make([]byte, 128)
			n, _, _, _, _ := syscall.Recvmsg(p[0], buf, nil, 0)
			_, _, _, _, _ = syscall.Recvmsg(p[0], buf[:1], nil, 0)
			_ = syscall.Close(p[0])
			got <- string(buf[:n])
		}()
		if err := o.Give(context.Background(), os.Getpid(), "sk-bench-0123456789", time.Second); err != nil {
			b.Fatal(err)
		}
		if k := <-got; k != "sk-bench-0123456789" {
			b.Fatalf("child got %q", k)
		}
	}
}
