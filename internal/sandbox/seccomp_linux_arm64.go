package sandbox

import "golang.org/x/sys/unix"

const (
	filterArch = unix.AUDIT_ARCH_AARCH64
	x32Bit     = 0
)
