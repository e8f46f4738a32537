package mcpclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// discoverWith runs the fixture with flags and discovery bounds lim.
func discoverWith(t *testing.T, lim discoveryLimits, flags ...string) (*Client, []ToolDef, error) {
	t.Helper()
	c, err := Connect(context.Background(), "fx", ServerConfig{Command: fixtureBin, Args: append([]string{"-root", t.TempDir()}, flags...)},
		Options{Environ: testEnviron, discovery: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tools, err := c.Discover(ctx)
	return c, tools, err
}

// A server past any discovery bound is rejected as a whole, with an error
// naming the server, the bound and what it saw; the connection is closed.
func TestDiscoveryBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lim   discoveryLimits
		flags []string
		want  string
	}{
		{"default total bytes, pages just under max_response_bytes", discoveryLimits{}, []string{"-pages", "3", "-page_bytes", "10400000"},
			`mcpclient fx: tools/list: tools/list exceeds the discovery bound tools_list_bytes=4194304 (observed at least 4`},
		{"total bytes across pages", discoveryLimits{Bytes: 1 << 20, DescriptionBytes: 1 << 20}, []string{"-pages", "8", "-page_bytes", "300000"},
			`mcpclient fx: tools/list: tools/list exceeds the discovery bound tools_list_bytes=1048576 (observed at least `},
		{"tool count", discoveryLimits{Tools: 20}, []string{"-tools", "30"},
			`mcpclient fx: tools/list: tools/list exceeds the discovery bound tools=20 (observed 21); server rejected`},
		{"pages", discoveryLimits{Pages: 3}, []string{"-pages", "10"},
			`mcpclient fx: tools/list: tools/list exceeds the discovery bound tools_list_pages=3 (observed 4); server rejected`},
		{"description", discoveryLimits{}, []string{"-desc_bytes", "40000"},
			`mcpclient fx: tools/list: tool "echo" exceeds the discovery bound tool_description_bytes=32768 (observed 40000); server rejected`},
		{"schema", discoveryLimits{SchemaBytes: 100000}, []string{"-big_schema"},
			`mcpclient fx: tools/list: tool "big_schema" exceeds the discovery bound tool_schema_bytes=100000 (observed 524322); server rejected`},
		{"cursor", discoveryLimits{}, []string{"-pages", "2", "-cursor_bytes", "5000"},
			`mcpclient fx: tools/list: tools/list exceeds the discovery bound cursor_bytes=4096 (observed 5000); server rejected`},
		{"name", discoveryLimits{}, []string{"-long_name"},
			`mcpclient fx: tools/list: tool "` + strings.Repeat("n", 64) + `…" exceeds the discovery bound tool_name_bytes=64 (observed 100); server rejected`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, tools, err := discoverWith(t, tt.lim, tt.flags...)
			var le *discoveryLimitError
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.As(err, &le) || tools != nil {
				t.Fatalf("err = %v\nwant %s", err, tt.want)
			}
			if classOf(err) != classMCP {
				t.Fatalf("class %q", classOf(err))
			}
			// Reading stopped within one read window past the budget: a page
			// is never read whole past what is left of it.
			if le.Bound == boundBytes && le.Observed > le.Limit+readBufferSize {
				t.Errorf("observed %d bytes, more than a read window past the %d-byte budget", le.Observed, le.Limit)
			}
			if _, err := c.CallTool(context.Background(), "echo", `{}`); err == nil {
				t.Fatalf("connection still usable after rejection: %v", err)
			}
		})
	}
}

// Bounds met exactly pass, and afterwards calls read up to max_response_bytes again.
func TestDiscoveryWithinBounds(t *testing.T) {
	t.Parallel()
	c, tools, err := discoverWith(t, discoveryLimits{Tools: 18 + 3, Pages: 3, DescriptionBytes: 1 << 20}, "-pages", "3", "-page_bytes", "1000000")
	if err != nil || len(tools) != 21 {
		t.Fatalf("err = %v, %d tools", err, len(tools))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := c.callToolResult(ctx, "large_result", []byte(`{"n":6000000}`))
	if err != nil || !r.Truncated {
		t.Fatalf("a 6 MB result after discovery: %v", err)
	}
}

// Each per-tool and per-list bound met exactly passes: the longest fixture
// name is 15 bytes, the longest description 28, every schema 17, and a
// cursor of exactly cursor_bytes is followed.
func TestDiscoveryBoundsMetExactly(t *testing.T) {
	n := len(fixtureToolNames)
	tests := []struct {
		name  string
		lim   discoveryLimits
		flags []string
		tools int
	}{
		{"name, description, schema, count, page", discoveryLimits{NameBytes: 15, DescriptionBytes: 28, SchemaBytes: 17, Tools: n, Pages: 1}, nil, n},
		{"cursor", discoveryLimits{}, []string{"-pages", "2", "-cursor_bytes", "4096"}, n},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, tools, err := discoverWith(t, tt.lim, tt.flags...)
			if err != nil || len(tools) != tt.tools {
				t.Fatalf("err = %v, %d tools, want %d", err, len(tools), tt.tools)
			}
		})
	}
	// One byte less on any of them rejects the server.
	for _, lim := range []discoveryLimits{{NameBytes: 14}, {DescriptionBytes: 27}, {SchemaBytes: 16}, {Tools: n - 1}} {
		if _, _, err := discoverWith(t, lim); err == nil || !errors.As(err, new(*discoveryLimitError)) {
			t.Errorf("limits %+v: err = %v, want a discovery bound", lim, err)
		}
	}
	if _, _, err := discoverWith(t, discoveryLimits{CursorBytes: 4095}, "-pages", "2", "-cursor_bytes", "4096"); err == nil ||
		!strings.Contains(err.Error(), "cursor_bytes=4095 (observed 4096)") {
		t.Errorf("cursor one over: err = %v", err)
	}
}

// A page over max_response_bytes while the discovery budget left is no
// smaller than it is refused by max_response_bytes, and named so; only a
// smaller budget makes it a tools_list_bytes rejection.
func TestDiscoveryPageOverMaxResponseBytes(t *testing.T) {
	const m = 1 << 20
	tests := []struct {
		budget int64
		want   string
	}{
		{m, "response line exceeded configured max_response_bytes limit of 1048576 bytes"},
		{2 * m, "response line exceeded configured max_response_bytes limit of 1048576 bytes"},
		{m - 1, "tools/list exceeds the discovery bound tools_list_bytes=1048575 (observed at least "},
	}
	for _, tt := range tests {
		c, err := Connect(context.Background(), "fx", ServerConfig{Command: fixtureBin, MaxResponseBytes: m,
			Args: []string{"-root", t.TempDir(), "-page_bytes", "2000000"}}, Options{Environ: testEnviron, discovery: discoveryLimits{Bytes: tt.budget, DescriptionBytes: 4 * m}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err = c.Discover(ctx)
		cancel()
		_ = c.Close()
		if err == nil || !strings.HasPrefix(err.Error(), "mcpclient fx: tools/list: "+tt.want) {
			t.Errorf("budget %d: err = %v, want %q", tt.budget, err, tt.want)
		}
	}
}
