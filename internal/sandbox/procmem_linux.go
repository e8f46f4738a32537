//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readMemory reads n bytes at addr of process pid.
func readMemory(pid int, addr uintptr, n int) ([]byte, unix.Errno) {
	buf := make([]byte, n)
	if n == 0 {
		return buf, 0
	}
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(n)
	remote := []unix.RemoteIovec{{Base: addr, Len: n}}
	got, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil {
		return nil, errnoOf(err)
	}
	if got != n {
		return nil, unix.EFAULT
	}
	return buf, 0
}

// readString reads a NUL-terminated string of at most limit-1 bytes at
// addr, page by page (the string may end just before an unmapped page).
func readString(pid int, addr uintptr, limit int) (string, unix.Errno) {
	if addr == 0 {
		return "", unix.EFAULT
	}
	var out []byte
	for len(out) < limit {
		page := 4096 - int((addr+uintptr(len(out)))%4096)
		chunk, errno := readMemory(pid, addr+uintptr(len(out)), min(page, limit-len(out)))
		if errno != 0 {
			return "", errno
		}
		if i := bytes.IndexByte(chunk, 0); i >= 0 {
			return string(append(out, chunk[:i]...)), 0
		}
		out = append(out, chunk...)
	}
	return "", unix.ENAMETOOLONG
}

// readTimes reads a call's two times as timespecs: utimensat's timespecs,
// utimes' and futimesat's timevals, utime's utimbuf (seconds). nil: now.
func readTimes(pid int, op metaOp, addr uintptr) ([]unix.Timespec, unix.Errno) {
	if addr == 0 {
		return nil, 0
	}
	size := map[metaOp]int{opTimes: 32, opTimesVal: 32, opTimesBuf: 16}[op]
	b, errno := readMemory(pid, addr, size)
	if errno != 0 {
		return nil, errno
	}
	word := func(i int) int64 { return int64(binary.LittleEndian.Uint64(b[8*i:])) }
	switch op {
	case opTimesVal:
		return []unix.Timespec{{Sec: word(0), Nsec: word(1) * 1000}, {Sec: word(2), Nsec: word(3) * 1000}}, 0
	case opTimesBuf:
		return []unix.Timespec{{Sec: word(0)}, {Sec: word(1)}}, 0
	}
	ts := make([]unix.Timespec, 2)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&ts[0])), 32), b)
	return ts, 0
}

func errnoOf(err error) unix.Errno {
	if e, ok := err.(unix.Errno); ok {
		return e
	}
	return unix.EPERM
}
