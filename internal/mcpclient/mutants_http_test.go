package mcpclient

import (
	"context"
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
