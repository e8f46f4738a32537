//go:build unix

package builtin

import (
	"bytes"
	"syscall"
)

// readText reads a file for search_files with three system calls for most
// files (open, one read, close): os.Open would add fcntl and an epoll
// registration, os.ReadFile an fstat, which over a large tree is most of
// the cost. The walk already knows the file is regular; a read shorter than
// asked is the end of a regular file. It reports false for binaries (a NUL
// in the first bytes: the rest is never read), files over the cap and files
// it cannot read.
func readText(p string, buf []byte) ([]byte, []byte, bool) {
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, buf, false
	}
	defer syscall.Close(fd)
	if cap(buf) < readChunk {
		buf = make([]byte, 0, readChunk)
	}
	data := buf[:cap(buf)]
	n, eof := readFull(fd, data)
	if bytes.IndexByte(data[:min(n, sniffBytes)], 0) >= 0 {
		return nil, buf, false
	}
	for !eof {
		if len(data) > MaxSearchFile {
			return nil, buf, false
		}
		grown := make([]byte, 2*len(data))
		copy(grown, data[:n])
		data, buf = grown, grown[:0]
		var k int
		k, eof = readFull(fd, data[n:])
		n += k
	}
	return data[:n], buf, true
}

// readChunk is the first read's size: most source files fit in one.
const readChunk = 128 << 10

// readFull fills b, reporting whether the file ended before it was full.
func readFull(fd int, b []byte) (int, bool) {
	n := 0
	for n < len(b) {
		k, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if k <= 0 || err != nil {
			return n, true
		}
		n += k
	}
	return n, false
}
