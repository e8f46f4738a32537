package interop_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/syncbuf"
)

// deadline bounds one test: a hung peer or client fails the test instead of
// stalling the suite until go test's global timeout.
func deadline(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// connect starts a client through odek's real API and closes it at cleanup.
// The peer's stderr is shown only when the test fails.
func connect(ctx context.Context, t *testing.T, name string, cfg mcpclient.ServerConfig, o mcpclient.Options) *mcpclient.Client {
	t.Helper()
	stderr := &syncbuf.Buffer{}
	if o.Stderr == nil {
		o.Stderr = stderr
	}
	c, err := mcpclient.Connect(ctx, name, cfg, o)
	if err != nil {
		t.Fatalf("Connect(%s): %v\npeer stderr:\n%s", name, err, stderr)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close(%s): %v", name, err)
		}
		if t.Failed() && stderr.String() != "" {
			t.Logf("peer %s stderr:\n%s", name, tail(stderr.String(), 4000))
		}
	})
	return c
}

// discover runs Discover and indexes the tools by name.
func discover(ctx context.Context, t *testing.T, c *mcpclient.Client) map[string]mcpclient.ToolDef {
	t.Helper()
	defs, err := c.Discover(ctx)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	byName := make(map[string]mcpclient.ToolDef, len(defs))
	for _, d := range defs {
		byName[d.Name] = d
	}
	return byName
}

// wrapper matches odek's untrusted-content fence around a tool result.
var wrapper = regexp.MustCompile(`(?s)^<untrusted_content_([0-9a-f]{16}) source="([^"]*)">\n(.*)\n</untrusted_content_([0-9a-f]{16})>$`)

// unwrap checks that out is fenced as untrusted content from mcp:<server>:<tool>
// and returns the body.
func unwrap(t *testing.T, out, server, tool string) string {
	t.Helper()
	m := wrapper.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("result is not wrapped as untrusted content:\n%s", tail(out, 600))
	}
	if m[1] != m[4] {
		t.Fatalf("fence nonces differ: open %s, close %s", m[1], m[4])
	}
	if want := "mcp:" + server + ":" + tool; m[2] != want {
		t.Fatalf("fence source = %q, want %q", m[2], want)
	}
	return m[3]
}

// call runs one tool and returns the unwrapped body, failing the test on error.
func call(ctx context.Context, t *testing.T, c *mcpclient.Client, server, tool, args string) string {
	t.Helper()
	out, err := c.CallTool(ctx, tool, args)
	if err != nil {
		t.Fatalf("CallTool(%s %s): %v", tool, args, err)
	}
	return unwrap(t, out, server, tool)
}

// tail keeps failure messages readable when a result is megabytes long.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// head is tail's mirror, for the start of long outputs.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// truncationNotice is the exact notice of docs/MCP.md
// (Go %q quoting, leading newline), for results cut without a result store.
func truncationNotice(server, tool string, observed, limit int) string {
	return fmt.Sprintf("\n[odek: result truncated — server %q tool %q produced %d chars, exceeding the configured max_result_chars=%d; the full result is available via the retained artifact references, if any]",
		server, tool, observed, limit)
}
