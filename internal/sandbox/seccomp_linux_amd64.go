package sandbox

import "golang.org/x/sys/unix"

const (
	filterArch = unix.AUDIT_ARCH_X86_64
	x32Bit     = 0x40000000
)

// amd64's calls that arm64 never had (it has only the *at forms).
var (
	legacyModeMeta   = []modeCall{{unix.SYS_CHMOD, 1}}
	legacyModeCreate = []modeCall{{unix.SYS_OPEN, 2}, {unix.SYS_CREAT, 1}, {unix.SYS_MKNOD, 1}}
	legacyMeta       = []uint32{unix.SYS_CHOWN, unix.SYS_LCHOWN, unix.SYS_UTIME, unix.SYS_UTIMES, unix.SYS_FUTIMESAT}
)
