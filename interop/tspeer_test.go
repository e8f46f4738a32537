package interop_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/syncbuf"
)

// The TypeScript SDK's own server entry points, 2.4.0: serveStdio (dual-era
// by default, modern-only with legacy: 'reject') and createMcpHandler over
// Streamable HTTP (stateless legacy fallback by default, or 'reject').

// tsStdio is the server config of the TypeScript peer over stdio.
func tsStdio(t *testing.T, args ...string) mcpclient.ServerConfig {
	return mcpclient.ServerConfig{Command: "node", Args: append([]string{requirePeer(t, peerTS)}, args...)}
}

// startTSHTTP runs the TypeScript peer as a Streamable HTTP server and
// returns its URL; closing its stdin at cleanup stops it.
func startTSHTTP(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("node", append([]string{requirePeer(t, peerTS), "--http"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start ts http peer: %v", err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case url := <-lines:
		if !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Fatalf("ts http peer printed %q, want its URL; stderr:\n%s", url, stderr)
		}
		return url
	case <-time.After(20 * time.Second):
		t.Fatalf("ts http peer printed no URL within 20s; stderr:\n%s", stderr)
	}
	return ""
}

func TestTSPeerEras(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  func(t *testing.T) mcpclient.ServerConfig
	}{
		{"stdio-default", func(t *testing.T) mcpclient.ServerConfig { return tsStdio(t) }},
		{"stdio-legacy-reject", func(t *testing.T) mcpclient.ServerConfig { return tsStdio(t, "--legacy=reject") }},
		{"http-default", func(t *testing.T) mcpclient.ServerConfig { return mcpclient.ServerConfig{URL: startTSHTTP(t)} }},
		{"http-legacy-reject", func(t *testing.T) mcpclient.ServerConfig {
			return mcpclient.ServerConfig{URL: startTSHTTP(t, "--legacy=reject")}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := deadline(t, 30*time.Second)
			c := connect(ctx, t, "ts", tc.cfg(t), mcpclient.Options{})
			tools := discover(ctx, t, c)
			// Every variant speaks 2026-07-28: a dual-era server is kept modern,
			// a modern-only one works like an old one did.
			if c.Era() != mcpclient.EraModern || c.ProtocolVersion() != mcpclient.ModernProtocolVersion {
				t.Errorf("era %q version %q, want modern %s", c.Era(), c.ProtocolVersion(), mcpclient.ModernProtocolVersion)
			}
			if got := call(ctx, t, c, "ts", "echo", `{"message":"hi"}`); got != "Echo: hi" {
				t.Errorf("echo = %q", got)
			}
			w := tools["weather"]
			if len(w.OutputSchema) == 0 || w.Annotations == nil || w.Annotations.ReadOnlyHint == nil || !*w.Annotations.ReadOnlyHint {
				t.Errorf("weather: outputSchema %s annotations %+v", w.OutputSchema, w.Annotations)
			}
			// Data sent only as structuredContent reaches the model as JSON.
			if got := call(ctx, t, c, "ts", "weather", `{"city":"Oslo"}`); got != `{"city":"Oslo","temp_c":21.5,"sky":"clear"}` {
				t.Errorf("weather = %q", got)
			}
		})
	}
}

// TestTSPeerInputRequired: the SDK's inputRequired elicitation fails the
// call without configured values (odek offers no elicitation), and is
// answered from mcp_servers.<s>.elicitation with them.
func TestTSPeerInputRequired(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 30*time.Second)
	c := connect(ctx, t, "ts", tsStdio(t), mcpclient.Options{})
	discover(ctx, t, c)
	// odek declares no elicitation capability without values, so the SDK
	// refuses to ask (-32021); the error says how to let it.
	_, err := c.CallTool(ctx, "deploy", `{"env":"prod"}`)
	var rpc *mcpclient.RPCError
	if !errors.As(err, &rpc) || rpc.Code != mcpclient.CodeMissingClientCapability ||
		!strings.Contains(err.Error(), "odek declares the elicitation capability only when mcp_servers.ts.elicitation holds answers") {
		t.Errorf("without values: err = %v", err)
	}
	cfg := tsStdio(t)
	cfg.Elicitation = map[string]json.RawMessage{"confirm": json.RawMessage(`true`)}
	c2 := connect(ctx, t, "ts", cfg, mcpclient.Options{})
	discover(ctx, t, c2)
	if got := call(ctx, t, c2, "ts", "deploy", `{"env":"prod"}`); got != "deployed to prod" {
		t.Errorf("with values: %q", got)
	}
}
