package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// resourceServer is a Streamable HTTP server with resources: its tool
// "link" answers with a resource_link to linked, and resources/read
// answers every URI with text, counting the reads by URI.
type resourceServer struct {
	linked, text string
	mu           sync.Mutex
	reads        map[string]int
}

func (s *resourceServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	if r.Method != http.MethodPost || m.Method == "" || strings.HasPrefix(m.Method, "notifications/") {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.Method == "server/discover" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	reply := func(result any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		_, _ = w.Write(b)
	}
	switch m.Method {
	case "initialize":
		reply(map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{}}})
	case "tools/list":
		reply(map[string]any{"tools": []any{map[string]any{"name": "link", "inputSchema": map[string]any{"type": "object"}}}})
	case "tools/call":
		reply(map[string]any{"content": []any{map[string]any{"type": "resource_link", "uri": s.linked, "name": "doc"}}})
	case "resources/read":
		s.mu.Lock()
		if s.reads == nil {
			s.reads = map[string]int{}
		}
		s.reads[m.Params.URI]++
		s.mu.Unlock()
		reply(map[string]any{"contents": []any{map[string]any{"uri": m.Params.URI, "text": s.text}}})
	}
}

func (s *resourceServer) readsOf(uri string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[uri]
}

// TestResourceReadFollowsOnlyLinks: mcp_resource_read reads a URI only
// once the server linked to it in a result of this run — never one the
// model made up (file:///etc/passwd of a filesystem server), never before
// the link, never through another server — and then pages the text by
// bytes, on rune boundaries, at most 256 KiB a page, with the secrets
// odek knows masked and the page fenced as the server's untrusted data.
func TestResourceReadFollowsOnlyLinks(t *testing.T) {
	t.Parallel()
	const linked = "file:///srv/doc.txt"
	text := strings.Repeat("é", 40) + " token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB " + strings.Repeat("x", 300<<10)
	srv := &resourceServer{linked: linked, text: text}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c, err := Connect(context.Background(), "docs", ServerConfig{URL: hs.URL + "/mcp"}, Options{HTTPClient: hs.Client()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	tool := NewResourceReader([]*Client{c})
	if tool == nil {
		t.Fatal("no mcp_resource_read over a server with resources")
	}
	read := func(server, uri string, offset, limit int) (string, error) {
		args, _ := json.Marshal(map[string]any{"server": server, "uri": uri, "offset": offset, "limit": limit})
		return tool.Call(ctx, args)
	}
	if _, err := read("docs", linked, 0, 10); err == nil || !strings.Contains(err.Error(), "has not linked") {
		t.Errorf("before the link: %v, want a refusal", err)
	}
	if _, err := c.callToolResult(ctx, "link", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{"file:///etc/passwd", linked + "/..", strings.ToUpper(linked)} {
		if _, err := read("docs", uri, 0, 10); err == nil || !strings.Contains(err.Error(), "has not linked") {
			t.Errorf("%s: %v, want a refusal", uri, err)
		}
		if n := srv.readsOf(uri); n != 0 {
			t.Errorf("%s was read from the server %d times", uri, n)
		}
	}
	if _, err := read("other", linked, 0, 10); err == nil || !strings.Contains(err.Error(), "unknown server") {
		t.Errorf("another server: %v, want a refusal", err)
	}

	// Paging: a limit over the cap is the cap; a page never ends inside
	// a rune; the token is masked; the page is fenced.
	out, err := read("docs", linked, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	header, body, _ := strings.Cut(out, "\n")
	if !strings.Contains(header, fmt.Sprintf("bytes 0..%d of ", maxResourceReadLimit)) || !strings.Contains(header, "TRUNCATED") {
		t.Errorf("header %q: want a first page of %d bytes, truncated", header, maxResourceReadLimit)
	}
	if strings.Contains(body, "ghp_0123456789") || !strings.Contains(body, "[REDACTED]") {
		t.Errorf("the token was not masked: %.200q", body)
	}
	if !strings.Contains(body, `source="mcp:docs:mcp_resource_read"`) {
		t.Errorf("the page is not fenced as the server's: %.200q", body)
	}
	out, err = read("docs", linked, 0, 3) // "é" is two bytes: the page ends after one
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(out, "\n"); !strings.Contains(header, "bytes 0..2 of") || strings.Contains(out, "\uFFFD") {
		t.Errorf("a 3-byte page of two-byte runes: %q, want it to end at byte 2", out)
	}
	if n := srv.readsOf(linked); n != 2 {
		t.Errorf("the linked resource was read %d times, want 2", n)
	}
}
