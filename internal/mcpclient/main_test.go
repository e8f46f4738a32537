package mcpclient

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/syncbuf"
	"github.com/odek-run/odek/internal/testbin"
	"go.uber.org/goleak"
)

// fixtureBin is testdata/artifact_server.go, built once per test run. A
// separate binary (not the race-instrumented test binary) keeps spawn fast.
var fixtureBin string

func TestMain(m *testing.M) {
	// The test binary is the sandbox launcher, as odek's binary is: proc
	// re-executes it with sandbox.LauncherArg for a server with a policy,
	// and internal/sandbox's init runs the launcher.
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	proc.SetLauncher(exe)
	flag.Parse()
	// A fuzz run (and each of its worker processes, which run TestMain
	// again) uses no fixture server: building it was most of a short
	// fuzz run's time.
	fuzzing := flag.Lookup("test.fuzz").Value.String() != "" || flag.Lookup("test.fuzzworker").Value.String() == "true"
	if !fuzzing {
		fixtureBin, err = testbin.Program("artifact_server", nil, "build", "-o", "{out}", "./internal/mcpclient/testdata/artifact_server.go")
		if err != nil {
			fmt.Fprintln(os.Stderr, "building fixture:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	testbin.Cleanup()
	os.Exit(code)
}

var testEnviron = []string{"PATH=/usr/bin:/bin", "HOME=/home/test", "OPENAI_API_KEY=sk-secret", "GITHUB_TOKEN=ghp_x", "FOO=bar", "LANG=C.UTF-8"}

type fixture struct {
	c      *Client
	root   string
	stderr *syncbuf.Buffer
	tools  []ToolDef
}

// startFixture connects to the fixture server and runs Discover.
func startFixture(t testing.TB, cfg ServerConfig, flags ...string) *fixture {
	t.Helper()
	f, err := connectFixture(t, cfg, flags...)
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	return f
}

func connectFixture(t testing.TB, cfg ServerConfig, flags ...string) (*fixture, error) {
	t.Helper()
	return connectFixtureTimed(t, cfg, timings{}, flags...)
}

// connectFixtureTimed is connectFixture with this Client's waits changed.
func connectFixtureTimed(t testing.TB, cfg ServerConfig, tm timings, flags ...string) (*fixture, error) {
	t.Helper()
	f := &fixture{root: t.TempDir(), stderr: &syncbuf.Buffer{}}
	cfg.Command = fixtureBin
	cfg.Args = append([]string{"-root", f.root}, flags...)
	if cfg.ArtifactRoots == nil {
		cfg.ArtifactRoots = []string{f.root}
	}
	var err error
	f.c, f.tools, err = connectDiscovered(t, "fx", cfg, Options{Stderr: f.stderr, Environ: testEnviron, timings: tm})
	return f, err
}

// connectDiscovered connects to a server (a failure ends the test), closes
// it when the test ends, and runs Discover, for at most 10 s.
func connectDiscovered(t testing.TB, name string, cfg ServerConfig, o Options) (*Client, []ToolDef, error) {
	t.Helper()
	c, err := Connect(context.Background(), name, cfg, o)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := c.Discover(ctx)
	return c, tools, err
}

func (f *fixture) call(t testing.TB, tool, args string) (*callResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return f.c.callToolResult(ctx, tool, []byte(args))
}

// waitPending waits (at most 10 s) until c has n requests in flight.
func waitPending(t testing.TB, c *Client, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		c.conn.mu.Lock()
		got := len(c.conn.pending)
		c.conn.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests in flight after 10 s, want %d", got, n)
		}
	}
}
