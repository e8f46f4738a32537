//go:build unix

package builtin

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/sandbox"
)

// These tests pin the shell tool's output handling at its caps (gremlins
// survivors of capture.go and shell.go): what the model sees, what is kept
// for the artifact and what the artifact line says.

// printCmd prints head bytes of 'h', mid of 'm' and tail of 't'.
func printCmd(head, mid, tail int) string {
	rep := func(n int, c string) string {
		return fmt.Sprintf("head -c %d /dev/zero | tr '\\\\0' %s;", n, c)
	}
	return `{"command":"` + rep(head, "h") + rep(mid, "m") + rep(tail, "t") + `","description":"print"}`
}

// Output of exactly MaxShellOutput bytes is shown whole, with no omission
// marker, and nothing is saved as an artifact; nor is a small output.
func TestShellOutputExactlyAtCap(t *testing.T) {
	tools, _, st := setup(t)
	out, err := call(t, tools["shell"], printCmd(MaxShellOutput-8192, 0, 8192))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("h", MaxShellOutput-8192) + strings.Repeat("t", 8192)
	if !strings.Contains(out, want) || strings.Contains(out, "omitted") || strings.Contains(out, "artifact") {
		t.Fatalf("output of exactly the cap was cut or saved: %.200s … %s", out, out[len(out)-300:])
	}
	if !strings.HasPrefix(out, fmt.Sprintf("exit code: 0 (%d bytes of output)", MaxShellOutput)) {
		t.Fatalf("header: %.80s", out)
	}
	if out, err := call(t, tools["shell"], `{"command":"echo small","description":"print"}`); err != nil || strings.Contains(out, "artifact") {
		t.Fatalf("small output: %v %s", err, out)
	}
	if len(st.saved) != 0 {
		t.Fatalf("%d artifacts saved for output within the cap", len(st.saved))
	}
}

// One byte over the cap: the first 24 KiB and the last 8 KiB are shown,
// the marker counts exactly the byte left out and the total, and the
// whole output is saved, named as the full output.
func TestShellOutputOneOverCap(t *testing.T) {
	tools, _, st := setup(t)
	head, tail := MaxShellOutput-MaxShellOutput/4, MaxShellOutput/4
	out, err := call(t, tools["shell"], printCmd(head, 1, tail))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("h", head) +
		fmt.Sprintf("\n\n... [1 bytes omitted — output was %d bytes total] ...\n\n", MaxShellOutput+1) +
		strings.Repeat("t", tail)
	if !strings.Contains(out, body) {
		t.Fatalf("cut output: %.120s … %s", out, out[len(out)-400:])
	}
	if len(st.saved) != 1 || len(st.saved[0]) != MaxShellOutput+1 {
		t.Fatalf("saved %d artifacts", len(st.saved))
	}
	if !strings.Contains(out, fmt.Sprintf("%d bytes): full output of the shell command", MaxShellOutput+1)) {
		t.Fatalf("artifact line: %s", out[len(out)-300:])
	}
}

// Output over what is kept: the artifact holds exactly the first
// maxShellKeep bytes and its line says how many of how many.
func TestShellOutputOverKeep(t *testing.T) {
	tools, _, st := setup(t)
	total := maxShellKeep + 100
	out, err := call(t, tools["shell"], printCmd(maxShellKeep-10, 10, 100))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.saved) != 1 {
		t.Fatalf("saved %d artifacts", len(st.saved))
	}
	want := append(bytes.Repeat([]byte("h"), maxShellKeep-10), bytes.Repeat([]byte("m"), 10)...)
	if !bytes.Equal(st.saved[0], want) {
		t.Fatalf("artifact: %d bytes, want the first %d", len(st.saved[0]), maxShellKeep)
	}
	if !strings.Contains(out, fmt.Sprintf("first %d of %d bytes of the shell command's output", maxShellKeep, total)) {
		t.Fatalf("artifact line: %s", out[len(out)-300:])
	}
	if !strings.Contains(out, fmt.Sprintf("[%d bytes omitted — output was %d bytes total]", total-MaxShellOutput, total)) {
		t.Fatalf("marker: %s", out[len(out)-9000:len(out)-8000])
	}
}

// Without a store a cut output is shown cut, with no artifact line.
func TestShellOutputCutWithoutStore(t *testing.T) {
	tools, _ := strengthTools(t)
	out, err := call(t, tools["shell"], printCmd(MaxShellOutput, 0, 1))
	if err != nil || !strings.Contains(out, "[1 bytes omitted") || strings.Contains(out, "artifact") {
		t.Fatalf("%v %s", err, out[len(out)-300:])
	}
}

// A command killed by a signal reports 128 + the signal's number.
func TestShellSignalExitCode(t *testing.T) {
	tools, _, _ := setup(t)
	out, err := call(t, tools["shell"], `{"command":"kill -9 $$","description":"die"}`)
	if err != nil || !strings.HasPrefix(out, "exit code: 137") {
		t.Fatalf("%v %s", err, out)
	}
}

// A command that cannot start is an error naming why, not "exit code: 0".
func TestShellStartFailure(t *testing.T) {
	tools, root, _ := setup(t)
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	out, err := call(t, tools["shell"], `{"command":"true","description":"t"}`)
	if err == nil || !strings.HasPrefix(err.Error(), "shell: ") || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("a missing working directory: %q, %v", out, err)
	}
}

// The sandbox gets the network only for a command that has a network
// part: alone, or beside a part of a higher class.
func TestShellPolicyNetwork(t *testing.T) {
	c, err := risk.New(risk.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sh := &shellTool{&workspace{cls: c, sandbox: &sandbox.Policy{Workspace: c.Root()}}}
	for cmd, want := range map[string]bool{
		"ls": false, "echo hi > f": false,
		"curl https://example.com": true, "curl https://example.com > /etc/x": true, "git clone https://x && make": true,
	} {
		p := sh.policyFor(c.Shell(cmd))
		if p == nil || p.Network != want || p.Workspace != c.Root() {
			t.Errorf("%q: policy %+v, want network %v", cmd, p, want)
		}
	}
	if (&shellTool{&workspace{cls: c}}).policyFor(c.Shell("curl https://x")) != nil {
		t.Error("no sandbox configured, yet a policy")
	}
	if sh.ws.sandbox.Network {
		t.Error("policyFor changed the tool's own policy")
	}
}
