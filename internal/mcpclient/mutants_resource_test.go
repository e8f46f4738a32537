package mcpclient

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// resourceReader connects to a resourceServer serving text, follows its
// link once, and returns a read function over mcp_resource_read, and one
// that calls it with the arguments given.
func resourceReader(t *testing.T, text string) (func(offset, limit int) (string, error), func(args map[string]any) (string, error)) {
	t.Helper()
	const linked = "file:///srv/page.txt"
	hs := httptest.NewServer(&resourceServer{linked: linked, text: text})
	t.Cleanup(hs.Close)
	c, err := Connect(context.Background(), "docs", ServerConfig{URL: hs.URL + "/mcp"}, Options{HTTPClient: hs.Client()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	if _, err := c.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.callToolResult(ctx, "link", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	tool := NewResourceReader([]*Client{c})
	call := func(args map[string]any) (string, error) {
		raw, _ := json.Marshal(args)
		return tool.Call(ctx, raw)
	}
	return func(offset, limit int) (string, error) {
		return call(map[string]any{"server": "docs", "uri": linked, "offset": offset, "limit": limit})
	}, call
}

// The pages of mcp_resource_read at their edges: the last page says where
// it ends and is not TRUNCATED; an offset at or past the end is refused,
// except 0 of an empty resource, which is an empty page; a page that
// starts inside a rune and has no rune start within its limit is empty
// rather than a slice that runs backwards.
func TestResourceReadPageEdges(t *testing.T) {
	t.Parallel()
	const text = "€abcdef" // "€" is 3 bytes: 9 bytes in all
	read, call := resourceReader(t, text)
	for _, tc := range []struct {
		name          string
		offset, limit int
		header, body  string // header must contain header; body must contain body
		truncated     bool
		err           string // non-empty: the call must fail with this
	}{
		{name: "last page", offset: 3, limit: 100, header: "bytes 3..9 of 9", body: "abcdef"},
		{name: "a limit that reaches the end exactly", offset: 3, limit: 6, header: "bytes 3..9 of 9", body: "abcdef"},
		{name: "whole", offset: 0, limit: 0, header: "bytes 0..9 of 9", body: text},
		{name: "one byte short of the end", offset: 3, limit: 5, header: "bytes 3..8 of 9", body: "abcde", truncated: true},
		{name: "inside a rune, no room for one", offset: 1, limit: 1, header: "bytes 1..1 of 9", truncated: true},
		{name: "at the end", offset: 9, limit: 10, err: "offset 9 is past the end (size 9)"},
		{name: "past the end", offset: 10, limit: 10, err: "offset 10 is past the end (size 9)"},
		{name: "negative offset", offset: -1, limit: 10, err: "offset -1 must be >= 0"},
		{name: "negative limit", offset: 0, limit: -1, err: "limit -1 must be >= 0"},
	} {
		out, err := read(tc.offset, tc.limit)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %q, %v; want the error %q", tc.name, out, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		header, body, _ := strings.Cut(out, "\n")
		if !strings.Contains(header, tc.header) || strings.Contains(header, "TRUNCATED") != tc.truncated || !strings.Contains(body, tc.body) {
			t.Errorf("%s: %q; want a header with %q (truncated %v) and a body with %q", tc.name, out, tc.header, tc.truncated, tc.body)
		}
	}

	for _, args := range []map[string]any{{"server": "docs"}, {"uri": "file:///srv/page.txt"}, {"server": "docs", "uri": ""}} {
		if out, err := call(args); err == nil || err.Error() != "server and uri are required" {
			t.Errorf("%v: %q, %v; want server and uri required", args, out, err)
		}
	}

	empty, _ := resourceReader(t, "")
	out, err := empty(0, 10)
	if err != nil || !strings.Contains(out, "bytes 0..0 of 0") || strings.Contains(out, "TRUNCATED") {
		t.Errorf("offset 0 of an empty resource: %q, %v; want an empty last page", out, err)
	}
	if _, err := empty(1, 10); err == nil || !strings.Contains(err.Error(), "offset 1 is past the end (size 0)") {
		t.Errorf("offset 1 of an empty resource: %v, want it refused", err)
	}
}
