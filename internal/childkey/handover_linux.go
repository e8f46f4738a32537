//go:build linux

package childkey

import "syscall"

// harden makes the process non-dumpable: its /proc files that matter
// (environ, mem, fd/*) then belong to root, and ptrace, process_vm_readv and
// pidfd_getfd need CAP_SYS_PTRACE. The flag belongs to the address space,
// so it covers the threads the runtime started before this init too.
func harden() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); e != 0 {
		return e
	}
	return nil
}

// isHandoverSocket checks that fd is what a parent hands over: a Unix
// seqpacket socket. Anything else is left alone.
func isHandoverSocket(fd int) error {
	typ, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE)
	switch {
	case err == syscall.EBADF:
		return fail("descriptor 3 is not open", nil)
	case err == syscall.ENOTSOCK:
		return fail("descriptor 3 is not a socket", nil)
	case err != nil:
		return fail("descriptor 3", err)
	case typ != syscall.SOCK_SEQPACKET:
		return fail("descriptor 3 is not a seqpacket socket", nil)
	}
	if dom, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_DOMAIN); err != nil || dom != syscall.AF_UNIX {
		return fail("descriptor 3 is not a Unix socket", err)
	}
	return nil
}

// receive is the child's side of the handover on fd, the parent's socket.
// It sends the parent one end of a socket pair made now, when no other
// process of the user can take it, closes fd, and reads the key from the
// other end. Whoever else holds fd cannot read what the parent writes: the
// parent writes only into the socket it received, after checking that its
// peer is this process.
func receive(fd int, timeout syscall.Timeval) (string, error) {
	if err := isHandoverSocket(fd); err != nil {
		return "", err
	}
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		_ = syscall.Close(fd)
		return "", fail("socketpair", err)
	}
	mine, theirs := pair[0], pair[1]
	defer syscall.Close(mine)
	// MSG_DONTWAIT: the parent's queue is empty unless someone else wrote
	// into it, and then the handover is lost anyway.
	err = syscall.Sendmsg(fd, []byte(Hello), syscall.UnixRights(theirs), nil, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
	_ = syscall.Close(theirs)
	_ = syscall.Close(fd)
	if err != nil {
		return "", fail("ask the parent for the key", err)
	}
	if err := syscall.SetsockoptTimeval(mine, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &timeout); err != nil {
		return "", fail("set the read timeout", err)
	}
	return readKey(mine, timeout)
}

// readKey reads the parent's one message, the key, and then the end of the
// socket: a message with descriptors, an oversized or empty one, or a
// second one is refused.
func readKey(fd int, timeout syscall.Timeval) (string, error) {
	buf := make([]byte, MaxKeyBytes+1)
	n, rights, trunc, err := recv(fd, buf)
	switch {
	case err == syscall.EAGAIN:
		return "", fail("no key from the parent within "+seconds(timeout), nil)
	case err != nil:
		return "", fail("read the key", err)
	case rights:
		return "", fail("the parent's message carried descriptors", nil)
	case trunc || n > MaxKeyBytes:
		return "", fail("the key is longer than 65536 bytes", nil)
	case n == 0:
		return "", fail("the parent sent no key", nil)
	}
	k := trimNewlines(string(buf[:n]))
	if k == "" {
		return "", fail("the parent sent an empty key", nil)
	}
	n, rights, _, err = recv(fd, buf[:1])
	switch {
	case err == syscall.EAGAIN:
		return "", fail("the parent did not close the socket after the key", nil)
	case err != nil:
		return "", fail("read after the key", err)
	case n != 0 || rights:
		return "", fail("a second message after the key", nil)
	}
	return k, nil
}

// recv reads one message from fd into buf. Descriptors that came with it
// are closed at once (rights reports them); trunc says the message did not
// fit. A signal does not end the wait.
func recv(fd int, buf []byte) (n int, rights, trunc bool, err error) {
	oob := make([]byte, syscall.CmsgSpace(4*8))
	var oobn, flags int
	for {
		n, oobn, flags, _, err = syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, false, false, err
	}
	rights = oobn > 0 || flags&syscall.MSG_CTRUNC != 0
	if msgs, perr := syscall.ParseSocketControlMessage(oob[:oobn]); perr == nil {
		for i := range msgs {
			fds, _ := syscall.ParseUnixRights(&msgs[i])
			for _, f := range fds {
				_ = syscall.Close(f)
			}
		}
	}
	return n, rights, flags&syscall.MSG_TRUNC != 0, nil
}
