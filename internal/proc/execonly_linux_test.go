package proc_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/odek-run/odek/internal/proc"
)

// execOnlyStage makes the test binary one of TestExecOnlySelf's processes:
// "start" starts it again from ExecOnlySelf's path and from SelfExe's, as
// "report", and prints both reports; "report" says whether it is dumpable
// and whether it can read its own executable.
const execOnlyStage = "PROC_TEST_EXEC_ONLY"

// nobody is the unprivileged user TestExecOnlySelf runs as when it is root.
const nobody = 65534

func execOnlyChild(stage string) int {
	if stage == "report" {
		// Nothing in this test binary sets the flag: what it is now, the
		// kernel set at exec.
		r, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_DUMPABLE, 0, 0)
		_, err := os.Open("/proc/self/exe")
		fmt.Printf("dumpable=%d readable=%v", r, err == nil)
		return 0
	}
	copyPath, err := proc.ExecOnlySelf()
	self, _ := proc.SelfExe()
	for _, path := range []string{copyPath, self} {
		cmd := exec.Command(path, "-test.run=^$")
		cmd.Env = []string{execOnlyStage + "=report"}
		cmd.Stderr = os.Stderr // a -cover binary's warning, not a report
		out, rerr := cmd.Output()
		fmt.Printf("%s (%v); ", out, rerr)
	}
	fmt.Printf("copied=%v err=%v", copyPath != self, err)
	return 0
}

// TestExecOnlySelf: a process started from ExecOnlySelf's path is
// non-dumpable before any of its code runs and cannot read its own
// executable; one started from SelfExe is dumpable until it says
// otherwise. Root reads every file: it gets SelfExe and ErrNotExecOnly.
func TestExecOnlySelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("needs /proc")
	}
	dir, err := os.MkdirTemp("", "proc-exec-only")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := dir + "/proc.test"
	if err := copyFile(bin, os.Args[0]); err != nil || os.Chmod(dir, 0o755) != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = []string{execOnlyStage + "=start"}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	// Stdout alone: a test binary built with -cover (gremlins, go test
	// -cover) warns on stderr in every process it starts.
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s%s", err, out, stderr.String())
	}
	want := "dumpable=0 readable=false (<nil>); dumpable=1 readable=true (<nil>); copied=true err=<nil>"
	if got := string(out); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if os.Geteuid() == 0 {
		path, err := proc.ExecOnlySelf()
		if self, _ := proc.SelfExe(); path != self || !errors.Is(err, proc.ErrNotExecOnly) || !strings.Contains(err.Error(), "root") {
			t.Fatalf("as root: ExecOnlySelf() = %q, %v", path, err)
		}
	}
}

func copyFile(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}
