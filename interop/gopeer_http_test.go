package interop_test

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/syncbuf"
)

// startGoHTTP runs the go-sdk peer as a Streamable HTTP server on a free
// loopback port and returns its endpoint URL. The process is killed and
// reaped at cleanup.
func startGoHTTP(t *testing.T, args ...string) string {
	t.Helper()
	bin := requirePeer(t, peerGo)
	cmd := exec.Command(bin, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start http peer: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case url := <-lines:
		if !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Fatalf("http peer printed %q, want its URL; stderr:\n%s", url, stderr)
		}
		return url
	case <-time.After(10 * time.Second):
		t.Fatalf("http peer printed no URL within 10s; stderr:\n%s", stderr)
	}
	return ""
}

func TestGoPeerHTTP(t *testing.T) {
	t.Parallel()
	url := startGoHTTP(t)
	dial := func(ctx context.Context, t *testing.T, cfg mcpclient.ServerConfig) *mcpclient.Client {
		t.Helper()
		cfg.URL = url
		return connect(ctx, t, "gohttp", cfg, mcpclient.Options{})
	}
	runGoPeerSuiteEra(t, "gohttp", dial, mcpclient.EraLegacy, mcpclient.ProtocolVersion)
}

// TestGoPeerHTTPStateless runs the suite against go-sdk's stateless
// Streamable HTTP handler (no sessions at all).
func TestGoPeerHTTPStateless(t *testing.T) {
	t.Parallel()
	url := startGoHTTP(t, "-stateless")
	dial := func(ctx context.Context, t *testing.T, cfg mcpclient.ServerConfig) *mcpclient.Client {
		t.Helper()
		cfg.URL = url
		return connect(ctx, t, "gohttp", cfg, mcpclient.Options{})
	}
	runGoPeerSuite(t, "gohttp", dial)
}

// TestGoPeerHTTPClose checks that Close ends the session cleanly and that the
// client refuses further calls; the server outlives it, as it should.
func TestGoPeerHTTPClose(t *testing.T) {
	t.Parallel()
	url := startGoHTTP(t)
	ctx := deadline(t, 10*time.Second)
	c := connect(ctx, t, "gohttp", mcpclient.ServerConfig{URL: url}, mcpclient.Options{})
	discover(ctx, t, c)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := c.CallTool(ctx, "greet", `{"name":"x"}`); err == nil {
		t.Error("CallTool after Close succeeded")
	}
	// A second client still works: closing one session does not break the server.
	c2 := connect(ctx, t, "gohttp", mcpclient.ServerConfig{URL: url}, mcpclient.Options{})
	discover(ctx, t, c2)
	if got := call(ctx, t, c2, "gohttp", "greet", `{"name":"two"}`); got != "Hello, two!" {
		t.Errorf("second session greet = %q", got)
	}
}
