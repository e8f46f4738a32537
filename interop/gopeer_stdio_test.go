package interop_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
)

// dialGoStdio spawns the go-sdk peer as a child over stdio.
func dialGoStdio(ctx context.Context, t *testing.T, cfg mcpclient.ServerConfig) *mcpclient.Client {
	t.Helper()
	cfg.Command = requirePeer(t, peerGo)
	return connect(ctx, t, "gopeer", cfg, mcpclient.Options{})
}

func TestGoPeerStdio(t *testing.T) {
	t.Parallel()
	requirePeer(t, peerGo)
	runGoPeerSuite(t, "gopeer", dialGoStdio)
}

// TestGoPeerStdioCloseEndsProcess checks that Close reaps the child: no live
// process and no zombie may remain once it returns.
func TestGoPeerStdioCloseEndsProcess(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 10*time.Second)
	c := dialGoStdio(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	pid, err := strconv.Atoi(call(ctx, t, c, "gopeer", "pid", `{}`))
	if err != nil {
		t.Fatalf("pid tool: %v", err)
	}
	if st, _ := procState(pid); st == "" {
		t.Fatalf("peer pid %d not found while connected", pid)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// A peer that ignored its stdin closing would be waited for 5 s before
	// SIGTERM; closing stdin ends a go-sdk peer in milliseconds, and well
	// under 4 s on a loaded machine.
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("Close took %v; closing stdin should end a go-sdk peer in milliseconds", el)
	}
	st, ok := procState(pid)
	if !ok {
		t.Skip("no /proc: cannot inspect processes")
	}
	if st != "" {
		t.Errorf("peer pid %d still present after Close (state %s)", pid, st)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.CallTool(ctx, "greet", `{"name":"x"}`); err == nil {
		t.Error("CallTool after Close succeeded")
	}
}

// TestGoPeerStdioServerExits checks that a server dying mid-call fails that
// call promptly with its exit status and stderr tail, and nothing after it hangs.
func TestGoPeerStdioServerExits(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 10*time.Second)
	none := 0
	c := dialGoStdio(ctx, t, mcpclient.ServerConfig{RestartLimit: &none})
	discover(ctx, t, c)
	start := time.Now()
	_, err := c.CallTool(ctx, "exit", `{"code":3}`)
	if err == nil {
		t.Fatal("call that killed the server succeeded")
	}
	var exit *mcpclient.ExitError
	if !errors.As(err, &exit) {
		t.Errorf("error is not a *mcpclient.ExitError: %T %v", err, err)
	} else if !strings.Contains(exit.Status, "3") || !strings.Contains(exit.StderrTail, "exiting with status 3") {
		t.Errorf("exit error lacks the status or stderr tail: %v", err)
	}
	// Promptly: not the request timeout (60 s); the exit status is waited
	// for at most 2 s.
	if el := time.Since(start); el > 8*time.Second {
		t.Errorf("failing the call took %v", el)
	}
	if _, err := c.CallTool(ctx, "greet", `{"name":"x"}`); err == nil {
		t.Error("call after the server exited succeeded with restart_limit 0")
	}
}

// TestGoPeerStdioRestarts checks the default restart_limit against the real
// SDK server: after it exits, the next call starts a new process (another
// pid) and succeeds; once the limit is spent, the server stays lost.
func TestGoPeerStdioRestarts(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 20*time.Second)
	c := dialGoStdio(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	first := call(ctx, t, c, "gopeer", "pid", `{}`)
	if _, err := c.CallTool(ctx, "exit", `{"code":3}`); err == nil {
		t.Fatal("call that killed the server succeeded")
	}
	second := call(ctx, t, c, "gopeer", "pid", `{}`)
	if text := second; text == first || text == "" {
		t.Errorf("restarted server reports pid %q, first was %q", text, first)
	}
	if _, err := c.CallTool(ctx, "exit", `{"code":3}`); err == nil {
		t.Fatal("second killing call succeeded")
	}
	if _, err := c.CallTool(ctx, "pid", `{}`); err == nil {
		t.Error("call after the restart limit (1) was spent succeeded")
	}
}

// TestChildEnvHidesSecrets checks the child environment rules of docs/MCP.md against a real child: only
// allowlisted variables reach it, and secret-looking names are dropped even
// when the server config sets them explicitly.
func TestChildEnvHidesSecrets(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 10*time.Second)
	environ := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/interop", "LANG=C.UTF-8",
		"ODEK_API_KEY=sk-interop-secret", "OPENAI_API_KEY=sk-interop-2", "GITHUB_TOKEN=ghp_interop",
		"AWS_SECRET_ACCESS_KEY=aws-interop", "DB_PASSWORD=pw-interop", "ODEK_MODEL=not-allowlisted",
	}
	lookup := func(k string) (string, bool) {
		for _, kv := range environ {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v, true
			}
		}
		return "", false
	}
	cfg := mcpclient.ServerConfig{
		Command: requirePeer(t, peerGo),
		Env:     map[string]string{"PEER_MODE": "interop", "SLACK_TOKEN": "xoxb-interop", "api-key": "k", "LANG": ""},
	}
	c := connect(ctx, t, "gopeer", cfg, mcpclient.Options{Environ: environ, LookupEnv: lookup})
	discover(ctx, t, c)
	got := map[string]string{}
	for _, kv := range strings.Split(call(ctx, t, c, "gopeer", "env", `{}`), "\n") {
		name, v, _ := strings.Cut(kv, "=")
		got[name] = v
	}
	for _, name := range []string{"ODEK_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY",
		"DB_PASSWORD", "SLACK_TOKEN", "api-key", "ODEK_MODEL", "LANG"} {
		if v, ok := got[name]; ok {
			t.Errorf("child sees %s=%q; it must not", name, v)
		}
	}
	for name, want := range map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/home/interop", "PEER_MODE": "interop"} {
		if got[name] != want {
			t.Errorf("child %s = %q, want %q", name, got[name], want)
		}
	}
}

// TestChildEnvHidesProcessSecrets is the same check through the default path,
// where the client reads odek's real environment (no Options.Environ).
func TestChildEnvHidesProcessSecrets(t *testing.T) {
	t.Setenv("ODEK_API_KEY", "sk-interop-process")
	t.Setenv("GITHUB_TOKEN", "ghp_interop_process")
	ctx := deadline(t, 10*time.Second)
	c := dialGoStdio(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	env := call(ctx, t, c, "gopeer", "env", `{}`)
	for _, name := range []string{"ODEK_API_KEY=", "GITHUB_TOKEN="} {
		if strings.HasPrefix(env, name) || strings.Contains(env, "\n"+name) {
			t.Errorf("child environment contains %s…", name)
		}
	}
	if !strings.Contains("\n"+env, "\nPATH=") {
		t.Errorf("child environment lacks PATH:\n%s", env)
	}
}
