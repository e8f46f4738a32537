//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestNoCapabilityFromAnInheritableSet: a launcher started with
// capabilities in its inheritable and ambient sets (a CI runner or
// container that passes some down) leaves none to its target. Root's exec
// grants the inheritable set whatever the bounding set holds, so the
// launcher must empty it, not only the bounding and ambient sets. The
// same start without the launcher shows the sets are really handed down.
func TestNoCapabilityFromAnInheritableSet(t *testing.T) {
	t.Parallel()
	needFilter(t)
	if os.Getuid() != 0 {
		t.Skip("not root: only root's exec grants the inheritable set")
	}
	attr := func() *syscall.SysProcAttr {
		return &syscall.SysProcAttr{Setpgid: true, AmbientCaps: []uintptr{unix.CAP_CHOWN, unix.CAP_SYS_ADMIN}}
	}
	run := func(cmd *exec.Cmd) string {
		t.Helper()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr, cmd.SysProcAttr, cmd.WaitDelay = &out, &out, attr(), 10*time.Second
		if err := cmd.Start(); err != nil {
			t.Skipf("cannot start a process with ambient capabilities here: %v", err)
		}
		stuck := stopAfter(cmd, launchLimit)
		err := cmd.Wait()
		if stuck() || err != nil {
			t.Fatalf("%v (stuck %v):\n%s", err, stuck(), out.String())
		}
		return probeResults(out.String())["caps"]
	}
	none := "eff=0000000000000000,prm=0000000000000000,inh=0000000000000000"
	if ctl := run(exec.Command(probeExe(t), probeArg, "caps")); ctl == none || !strings.Contains(ctl, "inh=") {
		t.Skipf("the capabilities are not handed down here: %s", ctl)
	}
	p, _ := confinedPolicy(t, true)
	cmd := launcherCmd(t, p, nil, nil, probeExe(t), probeArg, "caps")
	if got := run(cmd); got != none {
		t.Errorf("the target of a launcher with inheritable capabilities holds %s, want %s", got, none)
	}
}
