package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/odek-run/odek/internal/testbin"
)

// The sandbox launcher is odek started again for every shell call (twice
// when sandboxed), so it must not pay for the CLI: internal/sandbox's init
// takes the process over before the packages the launcher does not need
// are initialised. It must still be non-dumpable first (internal/childkey's
// init, and the launcher's own prctl): the command it starts runs as the
// same user and must not read the launcher's environment.
func TestLauncherSkipsTheCLIAndStaysNonDumpable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds odek")
	}
	t.Parallel()
	odek := testbin.Build(t, "odek", "./cmd/odek")
	probe := `if cat /proc/$PPID/environ >/dev/null 2>&1; then echo readable; else echo unreadable; fi`
	off := "odek-launch/1 off net=0 landlock=0 ruleset=0 flags=0" // internal/sandbox's launch form
	cmd := exec.Command(odek, "__odek-sandbox-launcher", off, "--", "/bin/sh", "-c", probe)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "GODEBUG=inittrace=1", "ODEK_API_KEY=sk-launcher-secret-0123456789"}
	if os.Getuid() == 0 {
		// root reads any process's environ, dumpable or not
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("launcher: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != "unreadable" {
		t.Errorf("the command found the launcher's environ %s", got)
	}
	trace := stderr.String()
	if !strings.Contains(trace, "init github.com/odek-run/odek/internal/childkey ") {
		t.Errorf("internal/childkey was not initialised before the launcher ran:\n%s", trace)
	}
	for _, pkg := range []string{"internal/cli", "internal/agentrun", "internal/builtin", "internal/llm", "internal/mcpclient"} {
		if strings.Contains(trace, "init github.com/odek-run/odek/"+pkg+" ") {
			t.Errorf("the launcher initialised %s:\n%s", pkg, trace)
		}
	}
}
