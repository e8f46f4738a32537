package mcpclient

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// crashAskServer is a modern server, in memory, whose one tool "t" is
// marked idempotent. The first tools/call of the test ends the connection,
// as a server process that dies mid-call does; every connection after
// that answers a call without requestState input_required (requestState
// "st"), and the retry that carries it with "answered". calls is shared by
// every connection the Client opens (one per restart).
func crashAskServer(calls *atomic.Int32) func(*memServer) {
	return func(end *memServer) {
		serveRequests(end, func(b []byte, send func(map[string]any)) {
			var m eraMsg
			if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
				return
			}
			switch m.Method {
			case "server/discover":
				send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28"},
					"capabilities": map[string]any{"tools": map[string]any{}}}})
			case "tools/list":
				send(map[string]any{"id": m.ID, "result": map[string]any{"tools": []any{
					map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"},
						"annotations": map[string]any{"idempotentHint": true}}}}})
			case "tools/call":
				if calls.Add(1) == 1 {
					end.Close()
					return
				}
				var p struct {
					RequestState string `json:"requestState"`
				}
				_ = json.Unmarshal(m.Params, &p)
				if p.RequestState == "st" {
					send(map[string]any{"id": m.ID, "result": map[string]any{"content": eraText("answered")}})
					return
				}
				send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "input_required",
					"requestState": "st", "inputRequests": json.RawMessage(`{"login":` + elicitReq(`{"mode":"form","message":"Name?","requestedSchema":`+nameSchema+`}`) + `}`)}})
			default:
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			}
		})
	}
}

// A call sent again to a restarted server keeps its whole budget of
// input_required rounds: the round the crash cut short is not one of
// them, so one request for input after the replay is answered (from the
// configured values), not given up on.
func TestReplayedCallKeepsItsInputRounds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var ns notices
	c, _, err := connectInMemory(t, "cr", ServerConfig{Elicitation: map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`)}}, Options{trustHints: true, OnNotice: ns.add}, crashAskServer(&calls))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := c.callToolResult(ctx, "t", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(r.Text, "\nanswered\n") {
		t.Fatalf("result %+v, err %v; want the call replayed, asked once for input and answered", r, err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("server saw %d calls, want 3 (the one cut off, the replay, the answer)", n)
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if len(ns.got) == 0 || ns.got[0].Kind != NoticeServerRestarted {
		t.Errorf("notices %+v, want a restart first", ns.got)
	}
}
