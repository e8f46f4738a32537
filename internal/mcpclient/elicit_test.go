package mcpclient

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// A 2025 server learns what odek can answer from initialize: the
// elicitation capability is declared there exactly when
// mcp_servers.<s>.elicitation holds answers, as in a modern request's _meta.
func TestLegacyInitializeDeclaresElicitation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		answers map[string]json.RawMessage
		want    string
	}{
		{"no answers", nil, `"capabilities":{}`},
		{"answers", map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`)}, `"capabilities":{"elicitation":{"form":{}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := eraClient(t, "legacy", ServerConfig{Elicitation: tc.answers}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := eraCall(t, c, "init")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text, tc.want) || !strings.Contains(r.Text, `"protocolVersion":"2025-03-26"`) {
				t.Errorf("initialize params %s, want %s", r.Text, tc.want)
			}
		})
	}
}

// A 2025 server's elicitation/create, sent mid-call, is answered from the
// configured values, and the answer is an input_answered notice (an
// mcp_input event) tied to the one call running, as a modern
// input_required answer is; without values it is declined, with a notice.
func TestLegacyElicitationNotices(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		answers map[string]json.RawMessage
		reply   string
		kind    string
	}{
		{"answered", map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`)}, `client said {"action":"accept","content":{"name":"octocat"}}`, NoticeInputAnswered},
		{"declined", nil, `client said {"action":"decline"}`, NoticeInputDeclined},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ns notices
			c, err := eraClient(t, "legacy", ServerConfig{Elicitation: tc.answers}, Options{OnNotice: ns.add})
			if err != nil {
				t.Fatal(err)
			}
			r, err := eraCall(t, c, "legacy_ask")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text, tc.reply) {
				t.Errorf("result %q, want %q", r.Text, tc.reply)
			}
			ns.mu.Lock()
			defer ns.mu.Unlock()
			if len(ns.got) != 1 || ns.got[0].Kind != tc.kind || ns.got[0].Tool != "legacy_ask" || ns.got[0].Server != "era" ||
				ns.got[0].Method != "elicitation/create" {
				t.Fatalf("notices = %+v", ns.got)
			}
			if tc.kind == NoticeInputAnswered && ns.got[0].Reason != "answered fields name" {
				t.Errorf("reason %q", ns.got[0].Reason)
			}
		})
	}
}

// With two calls running the request names neither, so the notice names no
// tool rather than a guess.
func TestLegacyElicitationTwoCalls(t *testing.T) {
	t.Parallel()
	var ns notices
	cfg := ServerConfig{Elicitation: map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`)}}
	c, err := eraClient(t, "legacy", cfg, Options{OnNotice: ns.add})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = c.callToolResult(ctx, "progress", json.RawMessage(`{"steps":0,"ms":1500}`)) })
	waitPending(t, c, 1)
	if _, err := c.callToolResult(ctx, "legacy_ask", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if len(ns.got) != 1 || ns.got[0].Kind != NoticeInputAnswered || ns.got[0].Tool != "" {
		t.Errorf("notices = %+v", ns.got)
	}
}
