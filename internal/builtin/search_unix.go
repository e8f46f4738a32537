//go:build unix

package builtin

import (
	"bytes"
	"os"
	"runtime"
	"syscall"

	"github.com/odek-run/odek/internal/safepath"
)

// readText reads the file rel below root for search_files with three system
// calls for most files (openat2, one read, close): os.Open would add fcntl
// and an epoll registration, os.ReadFile an fstat, which over a large tree
// is most of the cost. The file is opened following no symlink. The walk
// already knows the file is regular; a read shorter than asked is the end
// of a regular file. It reports false for binaries (a NUL in the first
// bytes: the rest is never read), files over the cap, files it cannot
// read and files check (nil: none) refuses once opened.
func readText(root *os.File, rel string, buf []byte, check func(fd int, rel string) bool) ([]byte, []byte, bool) {
	fd, err := safepath.OpenFD(root, rel, safepath.FileFlags)
	if err != nil {
		return nil, buf, false
	}
	defer syscall.Close(fd)
	if check != nil && !check(fd, rel) {
		return nil, buf, false
	}
	return readFD(fd, buf, MaxSearchFile)
}

// readOpenText is readText of a file already open.
func readOpenText(f *os.File) ([]byte, bool) {
	defer runtime.KeepAlive(f)
	data, _, ok := readFD(int(f.Fd()), nil, MaxSearchFile)
	return data, ok
}

// readFD reads fd whole into buf (grown as needed) unless it is binary or
// over limit bytes.
func readFD(fd int, buf []byte, limit int) ([]byte, []byte, bool) {
	if cap(buf) < readChunk {
		buf = make([]byte, 0, readChunk)
	}
	data := buf[:cap(buf)]
	n, eof := readFull(fd, data)
	if bytes.IndexByte(data[:min(n, sniffBytes)], 0) >= 0 {
		return nil, buf, false
	}
	// Read on to at most limit+1 bytes: a file that fills them is over.
	for !eof {
		if n > limit {
			return nil, buf, false
		}
		grown := make([]byte, min(2*len(data), limit+1))
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
