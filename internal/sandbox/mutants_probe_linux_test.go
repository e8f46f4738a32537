//go:build linux && (amd64 || arm64)

package sandbox

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Probe reports what the kernel answers when asked directly: the Landlock
// ABI of landlock_create_ruleset's version query and seccomp where
// PR_GET_SECCOMP answers (on an architecture the filter knows). The
// tests that need Landlock or seccomp skip when Probe says there is none,
// so a Probe that says so wrongly would silence them.
func TestProbeAgreesWithTheKernel(t *testing.T) {
	t.Parallel()
	got := Probe()
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */)
	want := 0
	if errno == 0 {
		want = int(abi)
	}
	if got.LandlockABI != want {
		t.Errorf("Probe's Landlock ABI %d, the kernel's %d (%v)", got.LandlockABI, want, errno)
	}
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	if wantSeccomp := err == nil && filterArch != 0; got.Seccomp != wantSeccomp {
		t.Errorf("Probe's seccomp %v, want %v (PR_GET_SECCOMP: %v)", got.Seccomp, wantSeccomp, err)
	}
	if got.Seccomp != (err == nil) {
		t.Errorf("on this architecture the filter is known: seccomp %v, PR_GET_SECCOMP %v", got.Seccomp, err)
	}
	if landlockABI() != want {
		t.Errorf("landlockABI() %d, the kernel's %d", landlockABI(), want)
	}
}

// Missing names each promise a kernel cannot hold, at the ABI each needs:
// file rules 1, renames across directories 2, TCP 4 (network off only),
// signals and abstract sockets 6; seccomp for the sockets (network off).
func TestMissingPerABI(t *testing.T) {
	t.Parallel()
	kinds := func(items []string) string {
		var out []string
		for _, it := range items {
			for k, word := range map[string]string{"landlock": "not enabled", "refer": "renames", "tcp": "TCP", "seccomp": "seccomp (", "signals": "signals"} {
				if strings.Contains(it, word) {
					out = append(out, k)
				}
			}
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		abi     int
		seccomp bool
		network bool
		want    string
	}{
		{0, true, false, "landlock"},
		{1, true, false, "refer signals tcp"},
		{1, false, false, "refer seccomp signals tcp"},
		{1, false, true, "refer signals"},
		{2, true, false, "signals tcp"},
		{3, true, false, "signals tcp"},
		{4, true, false, "signals"},
		{5, true, true, "signals"},
		{6, true, false, ""},
		{6, false, false, "seccomp"},
		{6, false, true, ""},
		{9, true, false, ""},
	} {
		got := Support{LandlockABI: c.abi, Seccomp: c.seccomp}.Missing(c.network)
		if k := kinds(got); k != c.want {
			t.Errorf("ABI %d seccomp %v network %v: missing %q, want %s", c.abi, c.seccomp, c.network, got, c.want)
		}
	}
	for s, want := range map[Support]string{
		{}: "no Landlock", {LandlockABI: 6}: "Landlock ABI 6", {LandlockABI: 4, Seccomp: true}: "Landlock ABI 4, seccomp",
	} {
		if s.String() != want {
			t.Errorf("%+v: %q, want %q", s, s.String(), want)
		}
	}
}
