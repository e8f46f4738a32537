//go:build unix

package builtin

import (
	"bytes"
	"syscall"
)

// readText reads a file for search_files with four system calls (open,
// fstat, read, close): os.Open would add fcntl and an epoll registration
// per file, which is most of the cost over a large tree. It reports false
// for binaries (a NUL in the first bytes: the rest is never read), files
// over the cap and files it cannot read.
func readText(p string, buf []byte) ([]byte, []byte, bool) {
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, buf, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > MaxSearchFile {
		return nil, buf, false
	}
	size := int(st.Size)
	if cap(buf) < size {
		buf = make([]byte, 0, size+size/4)
	}
	data := buf[:size]
	n := readFull(fd, data[:min(size, sniffBytes)])
	if bytes.IndexByte(data[:n], 0) >= 0 {
		return nil, buf, false
	}
	if n == min(size, sniffBytes) && n < size {
		n += readFull(fd, data[n:])
	}
	return data[:n], buf, true
}

func readFull(fd int, b []byte) int {
	n := 0
	for n < len(b) {
		k, err := syscall.Read(fd, b[n:])
		if k <= 0 || err != nil {
			if err == syscall.EINTR {
				continue
			}
			break
		}
		n += k
	}
	return n
}
