package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// eraClient connects to an eraServer in mode, in memory, and discovers.
func eraClient(t *testing.T, mode string, cfg ServerConfig, o Options) (*Client, error) {
	t.Helper()
	s := &eraServer{mode: mode}
	c, _, err := connectInMemory(t, "era", cfg, o, s.serve)
	return c, err
}

func eraCall(t *testing.T, c *Client, tool string) (*callResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.callToolResult(ctx, tool, json.RawMessage(`{}`))
}

func TestEraDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode    string
		era     Era
		version string
		seen    string // methods the server saw, up to the seen call
	}{
		{"legacy", EraLegacy, "2025-03-26", "server/discover,initialize,notifications/initialized,tools/list,tools/call"},
		{"legacy-silent", EraLegacy, "2025-03-26", "server/discover,notifications/cancelled,initialize,notifications/initialized,tools/list,tools/call"},
		// A modern server is never sent initialize: go-sdk refuses it after discover.
		{"modern", EraModern, "2026-07-28", "server/discover,tools/list,tools/call"},
		{"modern-only", EraModern, "2026-07-28", "server/discover,tools/list,tools/call"},
		// Too slow for the probe, then refuses initialize with -32022: odek
		// probes again on the same process and goes modern.
		{"slow-modern-only", EraModern, "2026-07-28", "server/discover,notifications/cancelled,initialize,server/discover,tools/list,tools/call"},
		// Answers the probe late, then refuses initialize as a duplicate
		// (go-sdk behind a slow launcher): asked again, it is modern.
		{"slow-dual", EraModern, "2026-07-28", "server/discover,notifications/cancelled,initialize,server/discover,tools/list,tools/call"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			c, err := eraClient(t, tt.mode, ServerConfig{}, Options{timings: timings{probe: 300 * time.Millisecond}})
			if err != nil {
				t.Fatalf("discover: %v", err)
			}
			if c.Era() != tt.era || c.ProtocolVersion() != tt.version {
				t.Errorf("era %q version %q, want %q %q", c.Era(), c.ProtocolVersion(), tt.era, tt.version)
			}
			r, err := eraCall(t, c, "seen")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text, tt.seen+"\n") && !strings.Contains(r.Text, tt.seen+"<") {
				t.Errorf("server saw %q, want %q", r.Text, tt.seen)
			}
		})
	}
}

func TestEraNoCommonVersionQuotesTheServersList(t *testing.T) {
	_, err := eraClient(t, "future", ServerConfig{}, Options{})
	if err == nil {
		t.Fatal("want an error for a server that speaks only 2099-01-01")
	}
	want := `mcpclient era: server/discover: server supports protocol versions ["2099-01-01"], none of which odek speaks (2026-07-28, 2025-03-26, 2025-11-25, 2025-06-18, 2024-11-05); disconnected`
	if err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// A DiscoverResult is read within its own bound (256 KiB), not the
// 10 MiB max_response_bytes; past it the server is rejected.
func TestDiscoverResultIsBounded(t *testing.T) {
	_, err := eraClient(t, "huge-discover", ServerConfig{}, Options{})
	if err == nil || !strings.Contains(err.Error(), "mcpclient era: server/discover: server/discover result exceeds the discovery bound discover_result_bytes=262144 (observed at least ") {
		t.Errorf("err = %v", err)
	}
}

func TestModernRequestsCarryMeta(t *testing.T) {
	c, err := eraClient(t, "modern", ServerConfig{}, Options{Version: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := eraCall(t, c, "meta")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`,
		`"io.modelcontextprotocol/clientCapabilities":{}`,
		`"io.modelcontextprotocol/clientInfo":{"name":"odek","version":"1.2.3"}`,
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("_meta %s lacks %s", r.Text, want)
		}
	}
}

func TestStructuredContent(t *testing.T) {
	for _, mode := range []string{"modern", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			c, err := eraClient(t, mode, ServerConfig{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := eraCall(t, c, "weather")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text, `{"city":"Oslo","temp":21.5}`) || strings.Contains(r.Text, structuredLabel) {
				t.Errorf("structured-only result reached the model as %q", r.Text)
			}
			r, err = eraCall(t, c, "weather_text")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text, "Sunny in Oslo\n"+structuredLabel+`{"temp":21.5}`) {
				t.Errorf("text and structured result reached the model as %q", r.Text)
			}
			_, err = eraCall(t, c, "bad_weather")
			if err == nil || !strings.HasPrefix(err.Error(), "mcpclient era: tool bad_weather: structuredContent does not match the tool's outputSchema: ") {
				t.Errorf("mismatch: err = %v", err)
			}
		})
	}
}

func TestUnknownResultTypeIsAnError(t *testing.T) {
	c, err := eraClient(t, "modern", ServerConfig{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eraCall(t, c, "odd_result")
	if err == nil || err.Error() != `mcpclient era: tool odd_result: unknown resultType "partial"` {
		t.Errorf("err = %v", err)
	}
}

// notices collects Options.OnNotice calls.
type notices struct {
	mu  sync.Mutex
	got []Notice
}

func (n *notices) add(x Notice) {
	n.mu.Lock()
	n.got = append(n.got, x)
	n.mu.Unlock()
}

func TestInputRequiredDeclinedByDefault(t *testing.T) {
	var ns notices
	c, err := eraClient(t, "modern", ServerConfig{}, Options{OnNotice: ns.add})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eraCall(t, c, "ask")
	var de *inputDeclinedError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want an inputDeclinedError", err)
	}
	want := `mcpclient era: tool ask: the server asked for input (elicitation/create) and odek declined: no values configured (set mcp_servers.era.elicitation to answer "Your GitHub login?")`
	if err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if len(ns.got) != 1 || ns.got[0].Kind != NoticeInputDeclined || ns.got[0].Tool != "ask" || ns.got[0].Server != "era" {
		t.Errorf("notices = %+v", ns.got)
	}
}

// A server that needs elicitation from a client that did not declare it
// (no answers configured) gets odek's reason appended, and a notice; with
// answers configured odek declared it, so the error is the server's alone.
func TestMissingElicitationCapabilityNamesTheSetting(t *testing.T) {
	const reason = "; odek declares the elicitation capability only when mcp_servers.era.elicitation holds answers"
	for _, answers := range []bool{false, true} {
		var ns notices
		cfg := ServerConfig{}
		if answers {
			cfg.Elicitation = map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`)}
		}
		c, err := eraClient(t, "modern", cfg, Options{OnNotice: ns.add})
		if err != nil {
			t.Fatal(err)
		}
		_, err = eraCall(t, c, "wants_elicitation")
		if err == nil || strings.HasSuffix(err.Error(), reason) == answers {
			t.Errorf("answers %v: err = %v", answers, err)
		}
		ns.mu.Lock()
		if declined := len(ns.got) == 1 && ns.got[0].Kind == NoticeInputDeclined; declined == answers || len(ns.got) > 1 {
			t.Errorf("answers %v: notices %+v", answers, ns.got)
		}
		ns.mu.Unlock()
	}
}

func TestInputRequiredAnsweredFromConfig(t *testing.T) {
	var ns notices
	cfg := ServerConfig{Elicitation: map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`), "unused": json.RawMessage(`1`)}}
	c, err := eraClient(t, "modern", cfg, Options{OnNotice: ns.add})
	if err != nil {
		t.Fatal(err)
	}
	r, err := eraCall(t, c, "ask")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, `answered {"action":"accept","content":{"name":"octocat"}}`) {
		t.Errorf("result %q", r.Text)
	}
	if len(ns.got) != 1 || ns.got[0].Kind != NoticeInputAnswered {
		t.Errorf("notices = %+v", ns.got)
	}
	m, err := eraCall(t, c, "meta")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}`) {
		t.Errorf("with answers configured odek must declare elicitation: %s", m.Text)
	}
}

// A call may come back input_required maxInputRounds-1 times and still
// complete; the maxInputRounds-th time odek gives up instead of retrying.
func TestInputRequiredRoundsAreBounded(t *testing.T) {
	cfg := ServerConfig{Elicitation: map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`)}}
	c, err := eraClient(t, "modern", cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	call := func(rounds int) (*callResult, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return c.callToolResult(ctx, "ask_rounds", json.RawMessage(fmt.Sprintf(`{"steps":%d}`, rounds)))
	}
	r, err := call(maxInputRounds - 1)
	if err != nil || !strings.Contains(r.Text, fmt.Sprintf("complete after %d rounds", maxInputRounds-1)) {
		t.Fatalf("%d rounds of input: %v, %+v", maxInputRounds-1, err, r)
	}
	// The server would complete on the next retry: only the bound stops it.
	_, err = call(maxInputRounds)
	want := fmt.Sprintf("mcpclient era: tool ask_rounds: still asked for input after %d rounds; gave up", maxInputRounds)
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}
