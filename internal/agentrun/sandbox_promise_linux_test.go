//go:build linux

package agentrun

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/testbin"
)

// confinedShell builds s's shell policy as a run does (mode, check's
// choice for auto, then build,
// with limit as a parent's sandbox) and returns a function that runs a
// bash script under it through a real launcher (odek's binary), giving its
// combined output and whether it exited 0.
func confinedShell(t *testing.T, s *sandboxState, limit *sandbox.Policy) func(script string) (string, bool) {
	t.Helper()
	support := sandbox.Probe()
	if missing := support.Missing(false); len(missing) > 0 {
		t.Skipf("the sandbox cannot hold here: %v", missing)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash (its /dev/tcp connects)")
	}
	odek := testbin.Build(t, "odek", "./cmd/odek")
	ios, _, _, _ := iostreams.Test()
	ios.LookupEnv = iostreams.EnvMap(map[string]string{"HOME": t.TempDir()})
	mode, network, _, err := s.mode(limit)
	if err != nil {
		t.Fatal(err)
	}
	if mode == sandbox.ModeAuto { // as check settles it where the sandbox holds
		mode = sandbox.ModeWorkspaceWrite
	}
	if err := s.build(ios, &sandboxPlan{mode: mode, network: network, support: support, limit: limit}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.swept != nil {
			<-s.swept
		}
		os.RemoveAll(s.tmpDir)
	})
	return func(script string) (string, bool) {
		l, err := sandbox.Command(odek, *s.policy, bash, "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		statusR, statusW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer statusR.Close()
		var out bytes.Buffer
		cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
		cmd.Env = sandbox.LauncherEnv([]string{"PATH=" + os.Getenv("PATH")})
		cmd.Dir, cmd.Stdout, cmd.Stderr = s.workDir, &out, &out
		cmd.ExtraFiles = append([]*os.File{statusW}, l.Files...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err = cmd.Start()
		statusW.Close()
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		return out.String(), err == nil
	}
}

// listener is a TCP listener on 127.0.0.1; the script connects to it with
// bash's /dev/tcp.
func listener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return `exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + ` && echo connected`
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFullAutoTurnsTheNetworkOff: --full-auto runs commands with the
// network off even where sandbox.network is on; a confined process's
// connection to a listener on 127.0.0.1 fails. Without --full-auto the
// same settings connect (the test can tell the two apart).
func TestFullAutoTurnsTheNetworkOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		fullAuto bool
		connects bool
	}{{"full-auto", true, false}, {"settings alone", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &sandboxState{cfg: config.Sandbox{Mode: sandbox.ModeAuto, Network: "on"}, fullAuto: tc.fullAuto,
				workDir: realDir(t), odekHome: t.TempDir()}
			run := confinedShell(t, s, nil)
			out, ok := run(listener(t))
			if connected := ok && strings.Contains(out, "connected"); connected != tc.connects {
				t.Fatalf("connected = %v, want %v (policy network %v):\n%s", connected, tc.connects, s.policy.Network, out)
			}
		})
	}
}

// TestSubagentSandboxWithinItsParents: a sub-agent whose own settings ask
// for more than its parent's sandbox allows (workspace-write, the network
// on, a writable path of its own) runs its commands inside the parent's:
// read-only, the network off, nothing written.
func TestSubagentSandboxWithinItsParents(t *testing.T) {
	t.Parallel()
	ws, extra := realDir(t), realDir(t)
	parent := &sandbox.Policy{Mode: sandbox.ModeReadOnly, Network: false, Workspace: ws}
	s := &sandboxState{cfg: config.Sandbox{Mode: sandbox.ModeWorkspaceWrite, Network: "on", Writable: []string{extra}},
		workDir: ws, odekHome: t.TempDir()}
	run := confinedShell(t, s, parent)
	if out, ok := run(listener(t)); ok || strings.Contains(out, "connected") {
		t.Errorf("the child connected under a parent with the network off:\n%s", out)
	}
	for _, dir := range []string{ws, extra} {
		f := filepath.Join(dir, "written")
		if out, ok := run("echo x > " + f); ok {
			t.Errorf("the child wrote %s under a read-only parent:\n%s", f, out)
		}
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s exists", f)
		}
	}
	if out, ok := run("cat /dev/null"); !ok {
		t.Fatalf("a plain command fails under the narrowed policy:\n%s", out)
	}
}
