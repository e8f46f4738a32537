package risk

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tests that close survivors of gremlins and of the hand mutations
// (scripts/mutate.sh, scripts/hand-mutations.txt): each case pins the whole
// set of classes and the reason, so a wrapper that stops running its command,
// or runs it when there is none, is seen.

// A shell's options may stand before and after -c; the command string is
// the first operand after them. sh -o errexit -c 'rm -rf /' used to be
// code_execution (a prompt) instead of destructive (denied): the classifier
// stopped at -o's value.
func TestShellOptionsBeforeTheCommandString(t *testing.T) {
	c := fixture(t)
	forms := []string{
		"sh -o errexit -c %s", "bash -O extglob -c %s", "bash -c -e %s", "bash +e -c %s",
		"bash -c -- %s", "sh -ec %s", "bash --norc -c %s", "sh -e -o pipefail -c %s",
	}
	for _, f := range forms {
		cmd := strings.ReplaceAll(f, "%s", "'rm -rf /'")
		if a := c.Shell(cmd); a.Class != Destructive {
			t.Errorf("Shell(%q) = %s (%s), want destructive", cmd, a.Class, a.Reason)
		}
	}
	for _, cmd := range []string{"sh - -c 'rm -rf /'", "sh -o", "bash -c", "sh -o errexit", "sh x.sh", `sh "$X" -c 'rm -rf /'`} {
		if a := c.Shell(cmd); a.Class != CodeExecution {
			t.Errorf("Shell(%q) = %s (%s), want code_execution", cmd, a.Class, a.Reason)
		}
	}
	// The real shell runs the operand after these options as the command.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	for i, f := range forms {
		marker := filepath.Join(dir, "ran"+string(rune('a'+i)))
		args := rejoin(f, marker)
		out, err := exec.Command(bash, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("bash %q: %v: %s", args, err, out)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("bash %q did not run its command string", args)
		}
	}
}

// rejoin builds form's arguments (after the shell's name) with "touch
// marker" as the one command-string argument.
func rejoin(form, marker string) []string {
	var args []string
	for _, f := range strings.Fields(form)[1:] {
		if f == "%s" {
			f = "touch " + marker
		}
		args = append(args, f)
	}
	return args
}
