package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The launcher makes itself non-dumpable, whoever started it: the command
// it starts runs as the same user and must not read its memory, its
// descriptors or its environment through /proc. odek's own childkey init
// does it first; this test binary has no childkey, so the launcher's own
// call is what the test sees. As root the launcher runs as nobody (root
// reads every process's environ), from a copy of this binary nobody can
// run.
func TestLauncherIsNonDumpable(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	probe := `if cat /proc/$PPID/environ >/dev/null 2>&1; then echo readable; else echo unreadable; fi`
	var cred *syscall.Credential
	if os.Getuid() == 0 {
		exe = copyForNobody(t, exe)
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	cmd := exec.Command(exe, LauncherArg, Policy{Mode: ModeOff}.encodeLaunch(), "--", "/bin/sh", "-c", probe)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "GORACE=atexit_sleep_ms=0"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("launcher: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "unreadable" {
		t.Errorf("the command found its launcher's environ %s", got)
	}
}

// copyForNobody copies the executable at path into a directory anyone may
// enter, and returns the copy's path.
func copyForNobody(t *testing.T, path string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "odek-launcher-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	copyPath := filepath.Join(dir, "launcher")
	dst, err := os.OpenFile(copyPath, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return copyPath
}
