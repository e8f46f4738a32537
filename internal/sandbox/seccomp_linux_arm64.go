package sandbox

import "golang.org/x/sys/unix"

const (
	filterArch = unix.AUDIT_ARCH_AARCH64
	x32Bit     = 0
)

// arm64 has only the *at forms of the file calls.
var (
	legacyModeMeta   []modeCall
	legacyModeCreate []modeCall
	legacyMeta       []uint32
)
