package sandbox

import (
	"fmt"
	"strings"
)

// Support is what the running kernel offers.
type Support struct {
	LandlockABI int  // 0: no Landlock
	Seccomp     bool // seccomp filters can be installed
}

// Promises are the ABI levels each promise needs.
const (
	abiFS      = 1 // writes and reads
	abiRefer   = 2 // rename and link between directories (without it both are denied)
	abiTCP     = 4 // TCP bind and connect
	abiScoping = 6 // signals and abstract Unix sockets out of the domain
	// abiResolveUnix restricts connecting to pathname Unix sockets; below
	// it, the seccomp filter denies Unix sockets too with the network off.
	abiResolveUnix = 9
)

// Missing names what the kernel lacks for a sandboxed mode with the given
// network setting, one item per promise; empty means every promise holds.
func (s Support) Missing(network bool) []string {
	var out []string
	if s.LandlockABI < abiFS {
		return []string{"Landlock (not enabled in this kernel: needs Linux 5.13+ with lsm=landlock)"}
	}
	if s.LandlockABI < abiRefer {
		out = append(out, fmt.Sprintf("Landlock ABI %d (renames across directories need ABI 2)", s.LandlockABI))
	}
	if !network && s.LandlockABI < abiTCP {
		out = append(out, fmt.Sprintf("Landlock ABI %d (denying TCP needs ABI 4)", s.LandlockABI))
	}
	if !network && !s.Seccomp {
		out = append(out, "seccomp (denying non-Unix sockets needs it)")
	}
	if s.LandlockABI < abiScoping {
		out = append(out, fmt.Sprintf("Landlock ABI %d (blocking signals to odek needs ABI 6)", s.LandlockABI))
	}
	return out
}

// String is the support on one line, for warnings.
func (s Support) String() string {
	if s.LandlockABI == 0 {
		return "no Landlock"
	}
	parts := []string{fmt.Sprintf("Landlock ABI %d", s.LandlockABI)}
	if s.Seccomp {
		parts = append(parts, "seccomp")
	}
	return strings.Join(parts, ", ")
}
