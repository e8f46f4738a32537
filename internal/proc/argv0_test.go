package proc_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/proc"
)

// argv0Stage makes the test binary one of TestArgv0's processes: "start"
// starts itself (SelfExe) and then sh, each printing its argv[0]; "print"
// prints its own. A process of its own, so that nothing has made
// ExecOnlySelf's copy before its first Start.
const argv0Stage = "PROC_TEST_ARGV0"

func argv0Child(stage string) int {
	if stage == "print" {
		fmt.Println(os.Args[0])
		return 0
	}
	self, err := proc.SelfExe()
	if err != nil {
		fmt.Println("SelfExe:", err)
		return 1
	}
	run := func(s proc.Spec) {
		s.Stdout, s.Stderr = os.Stdout, os.Stderr
		p, err := proc.Start(s)
		if err != nil {
			fmt.Println("Start:", err)
			return
		}
		if err := p.Wait(); err != nil {
			fmt.Println("Wait:", err)
		}
	}
	self0 := proc.Spec{Path: self, Args: []string{"-test.run=^$"}, Env: []string{argv0Stage + "=print"}}
	sh := proc.Spec{Path: "sh", Args: []string{"-c", `printf '%s\n' "$0"`}}
	run(self0)
	run(sh)
	_, _ = proc.ExecOnlySelf() // as root, SelfExe itself
	run(self0)
	run(sh)
	return 0
}

// TestArgv0: odek started again (a sub-agent, the launcher) runs under the
// name odek was started as, not /proc/self/exe or the execute-only copy's
// path, before and after that copy is made; any other program keeps its
// own name.
func TestArgv0(t *testing.T) {
	t.Parallel()
	const name = "odek-started-as-this"
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Args[0] = name
	cmd.Env = append(os.Environ(), argv0Stage+"=start")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s%s", err, out, stderr.String())
	}
	if got, want := string(out), name+"\nsh\n"+name+"\nsh\n"; got != want {
		t.Errorf("argv[0] of each process:\n%s\nwant\n%s", got, want)
	}
}

// TestStdio: a process reads the Stdin it was given and writes to the
// Stdout and Stderr it was given, each to its own.
func TestStdio(t *testing.T) {
	t.Parallel()
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	errR, errW := pipe(t)
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", `read l; echo "out $l"; echo "err $l" >&2`},
		Stdin: inR, Stdout: outW, Stderr: errW})
	if err != nil {
		t.Fatal(err)
	}
	outW.Close()
	errW.Close()
	if _, err := inW.WriteString("hello\n"); err != nil {
		t.Fatal(err)
	}
	out, errs := lines(t, outR), lines(t, errR)
	if got := out(); got != "out hello" {
		t.Errorf("stdout: %q, want %q", got, "out hello")
	}
	if got := errs(); got != "err hello" {
		t.Errorf("stderr: %q, want %q", got, "err hello")
	}
	if err := p.Wait(); err != nil {
		t.Error(err)
	}
}
