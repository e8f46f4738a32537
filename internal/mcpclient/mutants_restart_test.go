package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Two calls that both find their HTTP session gone (the server restarted
// under both) open one new session between them: the second waits for
// the first's restart and is sent again on that session, within
// restart_limit=1, instead of restarting the server once more.
func TestTwoCallsOnALostSessionRestartOnce(t *testing.T) {
	t.Parallel()
	s := &sessionServer{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	var ns notices
	c, _, err := connectDiscovered(t, "s2", ServerConfig{URL: srv.URL},
		Options{HTTPClient: srv.Client(), OnNotice: ns.add, timings: timings{probe: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	s.holdCalls(2)
	var wg sync.WaitGroup
	results := make([]string, 2)
	for i := range results {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r, err := c.callToolResult(ctx, "echo", json.RawMessage(`{}`))
			if err != nil {
				results[i] = err.Error()
				return
			}
			results[i] = r.Text
		})
	}
	wg.Wait()
	for i, r := range results {
		if !strings.Contains(r, "ran in s2") {
			t.Errorf("call %d: %s; want it run in the one new session", i, r)
		}
	}
	if opened, ran, lost := s.counts(); opened != 2 || ran != 2 || lost != 2 {
		t.Errorf("sessions opened %d, calls run %d, refused 404 %d; want 2, 2, 2", opened, ran, lost)
	}
	if got := ns.kinds(); got != "server_restarted:1/1" {
		t.Errorf("notices %s", got)
	}
}

// reopenFailServer is a modern server, in memory, counting its
// connections in conns: on the first, its tool "t" ends the connection
// (the server died mid-call); the second ends at the first message, so
// the restart's opening fails; later ones work.
func reopenFailServer(conns *atomic.Int32) func(*memServer) {
	return func(end *memServer) {
		n := conns.Add(1)
		serveRequests(end, func(b []byte, send func(map[string]any)) {
			var m eraMsg
			if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
				return
			}
			switch {
			case n == 2:
				end.Close()
			case m.Method == "server/discover":
				send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28"},
					"capabilities": map[string]any{"tools": map[string]any{}}}})
			case m.Method == "tools/list":
				send(map[string]any{"id": m.ID, "result": map[string]any{"tools": []any{
					map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}})
			case m.Method == "tools/call" && n == 1:
				end.Close()
			case m.Method == "tools/call":
				send(map[string]any{"id": m.ID, "result": map[string]any{"content": eraText("ran on connection " + fmt.Sprint(n))}})
			}
		})
	}
}

// A restart whose opening fails uses up one of restart_limit's restarts:
// when it was the last one the server is lost for good, saying why, and
// no later call starts it again; below the limit the call fails and the
// next one tries again.
func TestFailedRestartCountsAgainstTheLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit   int
		third   string // the third call's result or error
		notices string
		conns   int32
	}{
		{1, "mcpclient rf: restart: connection lost: EOF; not started again: the restart failed: mcpclient rf: server/discover: EOF", "server_lost:1/1", 2},
		{2, "ran on connection 3", "server_restarted:2/2", 3},
	} {
		t.Run(fmt.Sprint("restart_limit ", tc.limit), func(t *testing.T) {
			t.Parallel()
			var conns atomic.Int32
			var ns notices
			limit := tc.limit
			c, _, err := connectInMemory(t, "rf", ServerConfig{RestartLimit: &limit}, Options{OnNotice: ns.add}, reopenFailServer(&conns))
			if err != nil {
				t.Fatal(err)
			}
			call := func() string {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				r, err := c.callToolResult(ctx, "t", json.RawMessage(`{}`))
				if err != nil {
					return err.Error()
				}
				return r.Text
			}
			if got := call(); !strings.Contains(got, "EOF") {
				t.Fatalf("the call the server died under: %s", got)
			}
			second := call()
			if tc.limit == 1 && second != tc.third {
				t.Errorf("the call whose restart failed: %s\nwant %s", second, tc.third)
			}
			if want := "mcpclient rf: restart: connection lost: EOF; the restart failed: mcpclient rf: server/discover: EOF"; tc.limit == 2 && second != want {
				t.Errorf("the call whose restart failed: %s\nwant %s", second, want)
			}
			if got := call(); !strings.Contains(got, tc.third) {
				t.Errorf("the next call: %s\nwant %s", got, tc.third)
			}
			if got := ns.kinds(); got != tc.notices {
				t.Errorf("notices %s, want %s", got, tc.notices)
			}
			if n := conns.Load(); n != tc.conns {
				t.Errorf("%d connections opened, want %d", n, tc.conns)
			}
		})
	}
}
