package hooks

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestHTTPHook: the event is POSTed as JSON; a 2xx JSON answer decides, an
// empty 2xx is no objection, anything else fails open; headers expand only
// the variables allowedEnvVars names, and never in a project hook.
func TestHTTPHook(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var bodies, auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies, auths = append(bodies, string(b)), append(auths, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Other"))
		mu.Unlock()
		switch {
		case r.Header.Get("Content-Type") != "application/json":
			w.WriteHeader(415)
		case strings.Contains(string(b), `"command":"rm `):
			_, _ = io.WriteString(w, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"policy server says no"}}`)
		case strings.Contains(string(b), `"command":"boom`):
			w.WriteHeader(500)
		case strings.Contains(string(b), `"command":"html`):
			_, _ = io.WriteString(w, "<html>ok</html>")
		}
	}))
	defer srv.Close()
	block := `{"PreToolUse": [{"hooks": [{"type": "http", "url": "` + srv.URL + `/hook?k=1",
		"headers": {"Authorization": "Bearer ${AUDIT_TOKEN}", "X-Other": "$SECRET_OTHER"}, "allowedEnvVars": ["AUDIT_TOKEN"]}]}]}`
	env := map[string]string{"AUDIT_TOKEN": "tok123", "SECRET_OTHER": "leak"}
	lookup := func(o *Options) { o.LookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok } }
	g := newRig(t, block, "", lookup)
	ctx := context.Background()
	if res := g.r.Fire(ctx, shellCall("rm -rf x")); !res.Block || res.Reason != "policy server says no" {
		t.Errorf("deny: %+v", res)
	}
	if res := g.r.Fire(ctx, shellCall("ls")); !res.Empty() {
		t.Errorf("empty 200: %+v", res)
	}
	for _, cmd := range []string{"boom", "html"} {
		if res := g.r.Fire(ctx, shellCall(cmd)); res.Block {
			t.Errorf("%s: %+v", cmd, res)
		}
	}
	if w := g.warned(); !strings.Contains(w, "HTTP status 500") || !strings.Contains(w, "neither empty nor a JSON object") || strings.Contains(w, "k=1") {
		t.Errorf("warnings: %q", w)
	}
	p := newRig(t, `{"Stop": [{"hooks": [{"type": "http", "url": "`+srv.URL+`"}]}]}`, block, lookup)
	p.r.Fire(ctx, shellCall("ls"))
	mu.Lock()
	defer mu.Unlock()
	if auths[0] != "Bearer tok123|" || auths[len(auths)-1] != "Bearer|" {
		t.Errorf("headers sent: %q", auths)
	}
	if !strings.Contains(bodies[0], `"hook_event_name":"PreToolUse"`) || !strings.Contains(bodies[0], `"tool_input":{"command":"rm -rf x"`) {
		t.Errorf("body = %s", bodies[0])
	}
}
