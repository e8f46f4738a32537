package mcpclient

import (
	"context"
	"strings"
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
