package interop_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
)

// Elicitation in the 2025 era: a spec-following server asks for input only
// when the client declared the capability in initialize. odek declares it
// exactly when mcp_servers.<s>.elicitation holds answers, answers from them,
// and reports each answer as it does a modern input_required one.

// noticeLog collects a client's notices.
type noticeLog struct {
	mu  sync.Mutex
	got []mcpclient.Notice
}

func (l *noticeLog) add(n mcpclient.Notice) {
	l.mu.Lock()
	l.got = append(l.got, n)
	l.mu.Unlock()
}

func (l *noticeLog) inputs() []mcpclient.Notice {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []mcpclient.Notice
	for _, n := range l.got {
		if n.Kind == mcpclient.NoticeInputAnswered || n.Kind == mcpclient.NoticeInputDeclined {
			out = append(out, n)
		}
	}
	return out
}

var confirmAnswers = map[string]json.RawMessage{"confirm": json.RawMessage(`true`)}

// legacyConfirm runs the peer's confirm tool without and with answers: the
// SDK refuses to ask a client that declared nothing (refusal names the
// error the SDK gives), and with answers the call goes through and one
// input_answered notice names the call.
func legacyConfirm(t *testing.T, name string, cfg func() mcpclient.ServerConfig, refusal string) {
	t.Helper()
	ctx := deadline(t, 30*time.Second)
	c := connect(ctx, t, name, cfg(), mcpclient.Options{})
	discover(ctx, t, c)
	if c.Era() != mcpclient.EraLegacy {
		t.Fatalf("era %q, want legacy: this test is about the 2025 handshake", c.Era())
	}
	if _, err := c.CallTool(ctx, "confirm", `{"env":"prod"}`); err == nil || !strings.Contains(err.Error(), refusal) {
		t.Errorf("without answers: err = %v, want %q", err, refusal)
	}
	var log noticeLog
	withAnswers := cfg()
	withAnswers.Elicitation = confirmAnswers
	c2 := connect(ctx, t, name, withAnswers, mcpclient.Options{OnNotice: log.add})
	discover(ctx, t, c2)
	if got := call(ctx, t, c2, name, "confirm", `{"env":"prod"}`); got != "deployed to prod" {
		t.Errorf("with answers: %q", got)
	}
	in := log.inputs()
	if len(in) != 1 || in[0].Kind != mcpclient.NoticeInputAnswered || in[0].Tool != "confirm" || in[0].Method != "elicitation/create" ||
		in[0].Reason != "answered fields confirm" {
		t.Errorf("input notices %+v", in)
	}
}

// The TypeScript SDK 1.x (on which server-everything and most published
// servers are built) checks the capability from initialize.
func TestTS1PeerElicitation(t *testing.T) {
	t.Parallel()
	legacyConfirm(t, "ts1", func() mcpclient.ServerConfig {
		return mcpclient.ServerConfig{Command: "node", Args: []string{requirePeer(t, peerTS1)}}
	}, "Client does not support form elicitation.")
}

// go-sdk's sessionful Streamable HTTP handler speaks 2025-03-26 with odek;
// its Elicit checks the capability from initialize too.
func TestGoPeerHTTPElicitation(t *testing.T) {
	t.Parallel()
	url := startGoHTTP(t)
	legacyConfirm(t, "gohttp", func() mcpclient.ServerConfig { return mcpclient.ServerConfig{URL: url} }, "client does not support elicitation")
}

// server-everything offers trigger-elicitation-request only to a client
// that declared elicitation; with answers configured odek gets the tool and
// answers its form (name is the one required field).
func TestEverythingElicitation(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 30*time.Second)
	var log noticeLog
	cfg := mcpclient.ServerConfig{Command: requirePeer(t, peerEverything),
		Elicitation: map[string]json.RawMessage{"name": json.RawMessage(`"Octo Cat"`), "check": json.RawMessage(`true`)}}
	c := connect(ctx, t, "everything", cfg, mcpclient.Options{OnNotice: log.add})
	tools := discoverWith(ctx, t, c, "trigger-elicitation-request")
	if _, ok := tools["trigger-elicitation-request"]; !ok {
		t.Fatalf("trigger-elicitation-request not offered to a client that declared elicitation: %v", keys(tools))
	}
	got := call(ctx, t, c, "everything", "trigger-elicitation-request", `{}`)
	if !strings.Contains(got, "User provided the requested information") || !strings.Contains(got, "- Name: Octo Cat") ||
		!strings.Contains(got, "- Agreed to terms: true") {
		t.Errorf("result:\n%s", got)
	}
	if in := log.inputs(); len(in) != 1 || in[0].Kind != mcpclient.NoticeInputAnswered || in[0].Tool != "trigger-elicitation-request" {
		t.Errorf("input notices %+v", in)
	}
}

// discoverWith runs Discover until the tool named appears, for at most
// 10 s: server-everything registers its capability-dependent tools once
// initialized has arrived, and announces them with tools/list_changed,
// which odek does not follow.
func discoverWith(ctx context.Context, t *testing.T, c *mcpclient.Client, tool string) map[string]mcpclient.ToolDef {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		tools := discover(ctx, t, c)
		if _, ok := tools[tool]; ok || ctx.Err() != nil {
			return tools
		}
		select {
		case <-ctx.Done():
			return tools
		case <-time.After(50 * time.Millisecond):
		}
	}
}
