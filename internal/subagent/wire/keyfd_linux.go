//go:build linux

package wire

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// maxRights is how many descriptors one request is read with: a request
// carries one; more are read only to be closed.
const maxRights = 8

// NewKeyOffer makes the socket pair of one handover: two Unix seqpacket
// sockets, close-on-exec, the parent's end non-blocking so that Give can
// wait with a deadline. A socket cannot be reopened through
// /proc/<child>/fd/3 (open fails with ENXIO), unlike a file or a pipe.
func NewKeyOffer() (*KeyOffer, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: socketpair: %v", ErrKeyFD, err)
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		_ = syscall.Close(fds[0])
		_ = syscall.Close(fds[1])
		return nil, fmt.Errorf("%w: %v", ErrKeyFD, err)
	}
	return &KeyOffer{conn: os.NewFile(uintptr(fds[0]), "odek-key-handover"), child: os.NewFile(uintptr(fds[1]), "odek-key-handover")}, nil
}

// give waits for the child's request, checks it, and writes key into the
// socket the child sent.
func (o *KeyOffer) give(pid int, key string, timeout time.Duration) error {
	sock, err := o.request(pid, timeout)
	if err != nil {
		return err
	}
	defer syscall.Close(sock)
	if err := checkPeer(sock, pid); err != nil {
		return err
	}
	if err := o.noSecondMessage(); err != nil {
		return err
	}
	// MSG_DONTWAIT: the socket is new and empty; a full one is refused
	// rather than waited on.
	if err := syscall.Sendmsg(sock, []byte(key), nil, nil, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL); err != nil {
		return fmt.Errorf("%w: write the key for the child (pid %d): %v", ErrKeyFD, pid, err)
	}
	return nil
}

// request reads the child's one message and returns the descriptor it
// carried, or an error that names what was wrong with it.
func (o *KeyOffer) request(pid int, timeout time.Duration) (int, error) {
	rc, err := o.conn.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("%w: %v", ErrKeyFD, err)
	}
	buf := make([]byte, len(keyHello)+1)
	oob := make([]byte, syscall.CmsgSpace(4*maxRights))
	var n, oobn, flags int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, oobn, flags, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_CMSG_CLOEXEC)
		return rerr != syscall.EAGAIN
	})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return -1, fmt.Errorf("%w: the child (pid %d) did not ask for its key within %v", ErrKeyFD, pid, timeout)
	}
	if err == nil {
		err = rerr
	}
	if err != nil {
		return -1, fmt.Errorf("%w: read the child's request: %v", ErrKeyFD, err)
	}
	fds := rightsIn(oob[:oobn])
	if err := checkRequest(buf[:n], len(fds), flags); err != nil {
		closeAll(fds)
		return -1, fmt.Errorf("%w: the child (pid %d): %w", ErrKeyFD, pid, err)
	}
	return fds[0], nil
}

// checkRequest checks a child's request: the hello and exactly one
// descriptor, nothing cut off. nfds is how many descriptors came with it.
func checkRequest(payload []byte, nfds, flags int) error {
	switch {
	case len(payload) == 0 && nfds == 0:
		return errors.New("descriptor 3 was closed before it asked for its key (did it exit?)")
	case flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0:
		return errors.New("the request on descriptor 3 is too long")
	case string(payload) != keyHello:
		return fmt.Errorf("the request on descriptor 3 is %q, not %q", truncate(payload, 32), keyHello)
	case nfds != 1:
		return fmt.Errorf("the request on descriptor 3 carries %d descriptors, not 1", nfds)
	}
	return nil
}

// checkPeer checks that sock is a Unix seqpacket socket made by the child:
// a socket pair's peer credentials are those of the process that made it,
// so no other process can send one that passes.
func checkPeer(sock, pid int) error {
	cred, err := syscall.GetsockoptUcred(sock, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if errors.Is(err, syscall.ENOTSOCK) {
		return fmt.Errorf("%w: the descriptor sent on descriptor 3 is not a socket", ErrKeyFD)
	}
	if err != nil {
		return fmt.Errorf("%w: the socket sent on descriptor 3: %v", ErrKeyFD, err)
	}
	if int(cred.Pid) != pid || int(cred.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: the socket sent on descriptor 3 was made by pid %d (uid %d), not by the child (pid %d): another process holds the child's descriptor 3", ErrKeyFD, cred.Pid, cred.Uid, pid)
	}
	typ, err := syscall.GetsockoptInt(sock, syscall.SOL_SOCKET, syscall.SO_TYPE)
	if err != nil || typ != syscall.SOCK_SEQPACKET {
		return fmt.Errorf("%w: the socket sent on descriptor 3 is not a seqpacket socket", ErrKeyFD)
	}
	return nil
}

// noSecondMessage checks that nothing but the end follows the request: a
// second message means another process holds the child's descriptor 3.
func (o *KeyOffer) noSecondMessage() error {
	rc, err := o.conn.SyscallConn()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrKeyFD, err)
	}
	buf := make([]byte, 1)
	oob := make([]byte, syscall.CmsgSpace(4*maxRights))
	var n, oobn int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_CMSG_CLOEXEC|syscall.MSG_DONTWAIT)
		return true
	})
	closeAll(rightsIn(oob[:oobn]))
	switch {
	case err != nil:
		return fmt.Errorf("%w: %v", ErrKeyFD, err)
	case rerr == syscall.EAGAIN, rerr == nil && n == 0 && oobn == 0:
		return nil // nothing more, or the child closed descriptor 3
	case rerr != nil:
		return fmt.Errorf("%w: read descriptor 3: %v", ErrKeyFD, rerr)
	}
	return fmt.Errorf("%w: a second message on descriptor 3: another process holds the child's descriptor 3", ErrKeyFD)
}

// rightsIn lists the descriptors in a message's control data.
func rightsIn(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		if got, err := syscall.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		_ = syscall.Close(fd)
	}
}

// truncate is b cut to max bytes, for a message.
func truncate(b []byte, max int) string {
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
