//go:build !linux

package childkey

import "syscall"

// harden does nothing where PR_SET_DUMPABLE does not exist.
func harden() error { return nil }

// isHandoverSocket accepts any open descriptor: elsewhere the parent hands
// over a pipe (there is no /proc to take it through).
func isHandoverSocket(fd int) error {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return fail("descriptor 3 is not open", nil)
	}
	return nil
}

// receive reads the key from the pipe fd up to its end, and closes it.
func receive(fd int, _ syscall.Timeval) (string, error) {
	if err := isHandoverSocket(fd); err != nil {
		return "", err
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 256)
	chunk := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, chunk)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return "", fail("read the key", err)
		}
		if n == 0 {
			break
		}
		buf = append(buf, chunk[:n]...)
		if len(buf) > MaxKeyBytes {
			return "", fail("the key is longer than 65536 bytes", nil)
		}
	}
	k := trimNewlines(string(buf))
	if k == "" {
		return "", fail("the parent sent an empty key", nil)
	}
	return k, nil
}
