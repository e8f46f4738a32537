//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// closedStdinArg makes the test binary a wrapper that closes its stdin
// and execs the rest of its argv: a launcher started that way (odek run
// with <&-) finds descriptor 0 free.
const closedStdinArg = "__sandbox-test-closed-stdin"

func init() {
	if len(os.Args) < 3 || os.Args[1] != closedStdinArg {
		return
	}
	_ = unix.Close(0)
	err := syscall.Exec(os.Args[2], os.Args[2:], os.Environ())
	os.Stderr.WriteString("exec: " + err.Error() + "\n")
	os.Exit(126)
}

// A launcher started with stdin closed supervises metadata calls like any
// other, whichever descriptor its listener got (0 is the lowest free one).
func TestSupervisorWithStdinClosed(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, _ := metaPolicy(t, true)
	f := filepath.Join(ws, "f")
	mkfile(t, f, "x")
	op := "fchmodat:" + f
	cmd := launcherCmd(t, p, nil, nil, probeExe(t), probeArg, op)
	cmd.Args = append([]string{cmd.Path, closedStdinArg}, cmd.Args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 10 * time.Second
	stuck := stopAfter(cmd, launchLimit)
	out, err := cmd.CombinedOutput()
	if stuck() {
		t.Fatalf("the launcher did not exit within %v (killed): %s", launchLimit, out)
	}
	if got := probeResults(string(out))[op]; err != nil || got != "ok" {
		t.Errorf("a chmod in the workspace under a launcher without stdin: %q (%v)\n%s", got, err, out)
	}
	if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode: %v (%v)", fi.Mode(), err)
	}
}
