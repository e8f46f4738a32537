package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fdAttack lists the descriptors the confined command holds, then writes
// through and reads from every descriptor from 4 to 12 (the launcher's own,
// its ruleset and roots, and the inherited ones lie there). Landlock checks
// paths when they are opened; a descriptor opened before the domain was
// entered carries the rights it was opened with, wherever its file lies.
const fdAttack = `ls /proc/self/fd | tr '\n' ' '; echo
for fd in 4 5 6 7 8 9 10 11 12; do
  (eval "echo PWNED >&$fd") 2>/dev/null && echo wrote-$fd
  (eval "cat <&$fd") 2>/dev/null && echo read-$fd
done`

// TestCommandInheritsNoDescriptor: a descriptor the launcher inherits
// (odek's own parent left it open without close-on-exec: a CI runner, a
// make jobserver, a shell's "exec 7>>file") never reaches the confined
// command, so it cannot write outside the workspace or read a protected
// file through one. Before the launcher marked them close-on-exec, the
// command wrote PWNED into the file outside and read the protected one.
func TestCommandInheritsNoDescriptor(t *testing.T) {
	if Probe().LandlockABI < abiFS {
		t.Skip("no Landlock")
	}
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.txt")
	secretDir := filepath.Join(dir, "secret")
	secret := filepath.Join(secretDir, "key")
	ws := filepath.Join(dir, "ws")
	for _, d := range []string{secretDir, ws} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("TOPSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(outside, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	p := Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Landlock: true, Protected: []string{secretDir}}
	mustPrepare(t, &p)
	out, fds := runWithFiles(t, p, []*os.File{w, r}, "/bin/sh", "-c", fdAttack)
	if strings.Contains(out, "wrote-") || strings.Contains(out, "read-") || strings.Contains(out, "TOPSECRET") {
		t.Errorf("the command used an inherited descriptor:\n%s", out)
	}
	if got, _ := os.ReadFile(outside); string(got) != "before\n" {
		t.Errorf("the file outside the workspace now holds %q", got)
	}
	// ls's own directory descriptor is 3 (the launcher's status pipe is
	// close-on-exec): 0, 1, 2 and that one, nothing else.
	if fds != "0 1 2 3" {
		t.Errorf("the command holds descriptors %q, want 0 1 2 3 (ls's own)\n%s", fds, out)
	}
}

// runWithFiles runs target through the launcher with files as the fds
// after its own (the status pipe, the launch's descriptors) and returns
// the output and the first output line (the descriptor list).
func runWithFiles(t *testing.T, p Policy, files []*os.File, target string, args ...string) (string, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := launcherCmd(t, p, nil, files, target, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // the attack's last command fails when the promise holds
	first, _, _ := strings.Cut(out.String(), "\n")
	return out.String(), strings.TrimSpace(first)
}

func devNull(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
