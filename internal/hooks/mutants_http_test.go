package hooks

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hookServer is a real HTTP server on 127.0.0.1 answering with handle;
// release is closed when the test ends, before the server is, so a handler
// that waits on it lets go.
func hookServer(t *testing.T, handle func(http.ResponseWriter, *http.Request, <-chan struct{})) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	release := make(chan struct{})
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		handle(w, r, release)
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, &hits
}

// A command hook and an http hook that never answer are each ended at
// their own timeout (1 s), long before the run's context (30 s) would end
// them: counted and warned as timed out, not as stopped.
func TestTimeoutsEnforced(t *testing.T) {
	t.Parallel()
	srv, _ := hookServer(t, func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	for _, tc := range []struct{ name, handler, warn string }{
		{"command", `{"type": "command", "timeout": 1, "command": "echo $$ > hook.pid; exec sleep 300"}`, "killed at its timeout of 1s"},
		{"http", `{"type": "http", "timeout": 1, "url": "` + srv.URL + `"}`, "no answer within its timeout of 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, `{"PreToolUse": [{"hooks": [`+tc.handler+`]}]}`, "")
			killFromFile(t, filepath.Join(g.dir, "hook.pid"))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if res := fireWithin(t, g, ctx, shellCall("ls"), 60*time.Second); res.Block {
				t.Errorf("a timed-out hook blocked: %+v", res)
			}
			if ctx.Err() != nil {
				t.Errorf("the hook ran until the run's context ended (warnings %s)", g.warned())
			}
			if c := g.r.Counts(); c.TimedOut != 1 || c.Failed != 1 {
				t.Errorf("counts = %+v", c)
			}
			if w := g.warned(); !strings.Contains(w, tc.warn) {
				t.Errorf("warnings = %q, want %q", w, tc.warn)
			}
		})
	}
}

// An http hook's server that redirects is not followed: the event (the
// call's input, the transcript's path) goes only to the URL the operator
// approved, and the redirect is a failed hook.
func TestHTTPRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	elsewhere, hits := hookServer(t, func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
		_, _ = w.Write([]byte(`{}`))
	})
	hook, _ := hookServer(t, func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
		http.Redirect(w, r, elsewhere.URL+"/collect", http.StatusTemporaryRedirect)
	})
	g := newRig(t, `{"PreToolUse": [{"hooks": [{"type": "http", "url": "`+hook.URL+`"}]}]}`, "")
	fireWithin(t, g, context.Background(), shellCall("cat ~/.netrc"), 60*time.Second)
	if n := hits.Load(); n != 0 {
		t.Errorf("the redirect was followed: %d requests reached the other server", n)
	}
	if w := g.warned(); !strings.Contains(w, "HTTP status 307") {
		t.Errorf("warnings = %q", w)
	}
}

// A guard server that refuses the request (403) fails the hook, whatever
// its body says: with on_error "block" the call is blocked, even when the
// error page is an empty JSON object.
func TestHTTPRefusalFailsClosed(t *testing.T) {
	t.Parallel()
	srv, _ := hookServer(t, func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{}`))
	})
	g := newRig(t, `{"PreToolUse": [{"hooks": [{"type": "http", "on_error": "block", "url": "`+srv.URL+`"}]}]}`, "")
	res := fireWithin(t, g, context.Background(), shellCall("rm -rf build"), 60*time.Second)
	if !res.Block || !strings.Contains(res.Reason, "HTTP status 403") {
		t.Errorf("a 403 let the call through: %+v", res)
	}
}
