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

// An http url needs a host: one with the scheme but none (http:///mcp,
// whose path would otherwise be dialled as nothing) is refused at Connect,
// as a relative or non-http one is.
func TestHTTPURLWithoutHostIsRefused(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http:///mcp", "https://", "http:example.com/mcp"} {
		c, err := Connect(context.Background(), "s", ServerConfig{URL: u}, Options{})
		if err == nil {
			_ = c.Close()
			t.Errorf("%s: connected, want refused", u)
			continue
		}
		if want := "mcpclient s: url must be an absolute http or https URL with a host"; err.Error() != want || classOf(err) != classSetup {
			t.Errorf("%s: err = %v, want %q", u, err, want)
		}
	}
}

// The POSTs of notifications and answers, and the session DELETE on Close,
// are bounded by default (30 s, 2 s): a server that never answers them
// cannot hold the writer, or Close, for ever. Seeing either bound work
// takes a test that waits it out; this pins the values instead (a zero
// one is no bound at all: begin takes 0 for none).
func TestHTTPSendBoundsDefaults(t *testing.T) {
	t.Parallel()
	if httpSendTimeout != 30*time.Second || httpDeleteTimeout != 2*time.Second {
		t.Errorf("httpSendTimeout %v, httpDeleteTimeout %v; want 30s and 2s", httpSendTimeout, httpDeleteTimeout)
	}
}

// With machine login, a request refused with a 401 fetches a token and is
// sent once more, not again and again: against a server that refuses
// every token the authorization server gives, each request (the probe,
// then initialize) is sent twice, with one new token each, and Discover
// fails with the 401 instead of asking for tokens until its deadline.
func TestOAuthRefusedTokenIsTriedOnce(t *testing.T) {
	t.Parallel()
	p := newOAuthPeer(t, standardDocs())
	p.reply = func() (int, string) { return 200, `{"access_token":"tok-refused","token_type":"Bearer"}` }
	_, err := p.connect(t, nil)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("discover against a server that refuses every token: %v, want its 401", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sent := map[string]int{}
	for _, s := range p.seen {
		method, _, _ := strings.Cut(s, " ")
		sent[method]++
	}
	for method, n := range sent {
		if n != 2 {
			t.Errorf("%s sent %d times, want 2 (MCP requests %q)", method, n, p.seen)
		}
	}
	if len(p.forms) != len(sent) {
		t.Errorf("%d token requests for %d refused requests, want one each", len(p.forms), len(sent))
	}
}

// A legacy server that gives no session gets no Mcp-Session-Id header at
// all, not an empty one (which a strict server refuses as a malformed
// session): neither on its POSTs nor on the standalone stream's GET.
func TestNoSessionNoSessionHeader(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var sent []string // "<HTTP method> <JSON-RPC method>" of each request that had the header
	var gets int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m eraMsg
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &m)
		mu.Lock()
		if _, ok := r.Header["Mcp-Session-Id"]; ok {
			sent = append(sent, r.Method+" "+m.Method)
		}
		if r.Method == http.MethodGet {
			gets++
		}
		mu.Unlock()
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "server/discover":
			w.WriteHeader(http.StatusBadRequest)
		case "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}}}}`, m.ID)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`, m.ID)
		case "tools/call":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"echoed"}]}}`, m.ID)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(srv.Close)
	c, _, err := connectDiscovered(t, "ns", ServerConfig{URL: srv.URL}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := eraCall(t, c, "echo"); err != nil || !strings.Contains(r.Text, "echoed") {
		t.Fatalf("call: %v", err)
	}
	// The standalone stream's loop ends at the GET's 405.
	waitStreamEnded(t, c, func() string { return "its GET answered 405" })
	mu.Lock()
	defer mu.Unlock()
	if gets != 1 || len(sent) != 0 {
		t.Errorf("%d GETs; requests with an Mcp-Session-Id header: %q; want 1 GET and none", gets, sent)
	}
}
