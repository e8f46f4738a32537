package sandbox

import "golang.org/x/sys/unix"

// decodeLegacy decodes amd64's older path calls.
func decodeLegacy(nr int, a [6]uint64, path func(metaOp, bool) metaCall) (metaCall, bool) {
	var c metaCall
	switch nr {
	case unix.SYS_CHMOD:
		c = path(opChmod, false)
		c.mode = uint32(a[1])
	case unix.SYS_CHOWN, unix.SYS_LCHOWN:
		c = path(opChown, nr == unix.SYS_LCHOWN)
		c.uid, c.gid = int(int32(a[1])), int(int32(a[2]))
	case unix.SYS_UTIME:
		c = path(opTimesBuf, false)
		c.times = uintptr(a[1])
	case unix.SYS_UTIMES:
		c = path(opTimesVal, false)
		c.times = uintptr(a[1])
	case unix.SYS_FUTIMESAT:
		c = metaCall{op: opTimesVal, fd: -1, dir: int(int32(a[0])), path: uintptr(a[1]), times: uintptr(a[2])}
	default:
		return c, false
	}
	return c, true
}
