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
	"sync/atomic"
	"testing"
	"time"
)

// idempotentServer is a modern server, in memory, whose one tool "t" is
// marked idempotent; answer answers its n-th tools/call (counted from 1
// across every connection the Client opens, one per restart) with send,
// or ends the connection with end.Close, as a server process that dies
// mid-call does.
func idempotentServer(calls *atomic.Int32, answer func(n int32, m eraMsg, end *memServer, send func(map[string]any))) func(*memServer) {
	return func(end *memServer) {
		serveRequests(end, func(b []byte, send func(map[string]any)) {
			var m eraMsg
			if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
				return
			}
			if answerDiscovery(m.ID, m.Method, send, map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"},
				"annotations": map[string]any{"idempotentHint": true}}) {
				return
			}
			switch m.Method {
			case "tools/call":
				answer(calls.Add(1), m, end, send)
			default:
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			}
		})
	}
}

// crashThenAsk ends the connection at the first call; later calls without
// requestState are answered input_required (requestState "st"), the retry
// that carries it with "answered".
func crashThenAsk(n int32, m eraMsg, end *memServer, send func(map[string]any)) {
	if n == 1 {
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
	send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "input_required", "requestState": "st",
		"inputRequests": json.RawMessage(`{"login":` + elicitReq(`{"mode":"form","message":"Name?","requestedSchema":`+nameSchema+`}`) + `}`)}})
}

// A call sent again to a restarted server keeps its whole budget of
// input_required rounds: the round the crash cut short is not one of
// them, so one request for input after the replay is answered (from the
// configured values), not given up on.
func TestReplayedCallKeepsItsInputRounds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var ns notices
	c, _, err := connectInMemory(t, "cr", ServerConfig{Elicitation: map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`)}}, Options{trustHints: true, OnNotice: ns.add}, idempotentServer(&calls, crashThenAsk))
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

// A trusted idempotent tool is sent again only when the connection broke
// under the call: a call the server answered with an error (it ran, or
// refused) is not sent a second time.
func TestAnsweredErrorIsNotReplayed(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, _, err := connectInMemory(t, "ae", ServerConfig{}, Options{trustHints: true}, idempotentServer(&calls,
		func(n int32, m eraMsg, _ *memServer, send func(map[string]any)) {
			if n == 1 {
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32603, "message": "boom"}})
				return
			}
			send(map[string]any{"id": m.ID, "result": map[string]any{"content": eraText("second")}})
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := c.callToolResult(ctx, "t", json.RawMessage(`{}`))
	if want := "mcpclient ae: tools/call: MCP error -32603: boom"; err == nil || err.Error() != want {
		t.Errorf("result %+v, err %v; want %s", r, err, want)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("server saw %d calls, want 1", n)
	}
}

// sessionServer is a 2025-03-26 Streamable HTTP server with sessions: an
// initialize opens one (Mcp-Session-Id s1, s2, ...), a request without one
// is refused 400, and one with a session the server does not know 404, as
// a restarted server answers. forget drops every session; holdCalls(n)
// holds the next tools/calls until n have arrived, then forgets and
// answers each of them 404.
type sessionServer struct {
	mu       sync.Mutex
	sessions map[string]bool
	opened   int
	ran      int // tools/call run
	lost     int // 404s
	hold     int
	arrived  int
	held     chan struct{}
}

func (s *sessionServer) holdCalls(n int) {
	s.mu.Lock()
	s.hold, s.arrived, s.held = n, 0, make(chan struct{})
	s.mu.Unlock()
}

// holding waits, for a call held by holdCalls, until all have arrived and
// the sessions are forgotten; false for a call not held.
func (s *sessionServer) holding(r *http.Request, m eraMsg) bool {
	s.mu.Lock()
	if m.Method != "tools/call" || s.hold == 0 {
		s.mu.Unlock()
		return false
	}
	s.arrived++
	held := s.held
	if s.arrived == s.hold {
		s.sessions, s.hold = nil, 0
		close(held)
	}
	s.mu.Unlock()
	select {
	case <-held:
	case <-r.Context().Done():
	}
	return true
}

func (s *sessionServer) forget() {
	s.mu.Lock()
	s.sessions = nil
	s.mu.Unlock()
}

func (s *sessionServer) counts() (opened, ran, lost int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened, s.ran, s.lost
}

func (s *sessionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var m eraMsg
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	sid := r.Header.Get("Mcp-Session-Id")
	held := s.holding(r, m)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case held:
		s.lost++
		http.Error(w, "session not found", http.StatusNotFound)
		return
	case m.Method == "initialize":
		s.opened++
		sid = fmt.Sprintf("s%d", s.opened)
		if s.sessions == nil {
			s.sessions = map[string]bool{}
		}
		s.sessions[sid] = true
		w.Header().Set("Mcp-Session-Id", sid)
	case sid == "":
		http.Error(w, "Bad Request: no session", http.StatusBadRequest)
		return
	case !s.sessions[sid]:
		s.lost++
		http.Error(w, "session not found", http.StatusNotFound)
		return
	case len(m.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result := map[string]any{}
	switch m.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{"tools": map[string]any{}}}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}
	case "tools/call":
		s.ran++
		result = map[string]any{"content": eraText("ran in " + sid)}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

// A call to an HTTP server that no longer knows odek's session (it
// restarted: 404) was not run: odek opens a new session and sends it
// again, once, saying so; with restart_limit 0 the call fails at once,
// naming the limit.
func TestSessionLostCallIsSentAgain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		limit int
		text  string // the second call's result, or
		err   string // its error
	}{
		{"renewed", 1, "ran in s2", ""},
		{"restart_limit 0", 0, "", "mcpclient sl: restart: the server no longer knows odek's session (HTTP 404); not started again (restart_limit=0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &sessionServer{}
			srv := httptest.NewServer(s)
			defer srv.Close()
			var ns notices
			limit := tc.limit
			c, _, err := connectDiscovered(t, "sl", ServerConfig{URL: srv.URL, RestartLimit: &limit},
				Options{HTTPClient: srv.Client(), OnNotice: ns.add, timings: timings{probe: 2 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if r, err := c.callToolResult(ctx, "echo", json.RawMessage(`{}`)); err != nil || !strings.Contains(r.Text, "ran in s1") {
				t.Fatalf("first call: %+v, %v", r, err)
			}
			s.forget()
			r, err := c.callToolResult(ctx, "echo", json.RawMessage(`{}`))
			opened, ran, lost := s.counts()
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("second call: %+v, %v; want %s", r, err, tc.err)
				}
				if opened != 1 || ran != 1 || lost != 1 {
					t.Errorf("sessions opened %d, calls run %d, refused 404 %d; want 1, 1, 1", opened, ran, lost)
				}
				return
			}
			if err != nil || !strings.Contains(r.Text, tc.text) {
				t.Fatalf("second call: %+v, %v; want %q", r, err, tc.text)
			}
			if opened != 2 || ran != 2 || lost != 1 {
				t.Errorf("sessions opened %d, calls run %d, refused 404 %d; want 2, 2, 1", opened, ran, lost)
			}
			ns.mu.Lock()
			defer ns.mu.Unlock()
			if len(ns.got) != 1 || ns.got[0].Kind != NoticeServerRestarted || ns.got[0].Reason != errSessionLost.Error() {
				t.Errorf("notices %+v, want one restart for the lost session", ns.got)
			}
		})
	}
}
