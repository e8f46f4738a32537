package mcpclient

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"
)

// holdServer is a modern server, in memory, whose tools "a" and "b" answer
// only once release is closed; started receives each call's tool as the
// server gets it.
func holdServer(started chan<- string, release <-chan struct{}, wg *sync.WaitGroup) func(*memServer) {
	return func(end *memServer) {
		serveRequests(end, func(b []byte, send func(map[string]any)) {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
				return
			}
			if answerDiscovery(m.ID, m.Method, send, map[string]any{"name": "a", "inputSchema": map[string]any{"type": "object"}},
				map[string]any{"name": "b", "inputSchema": map[string]any{"type": "object"}}) {
				return
			}
			switch m.Method {
			case "tools/call":
				started <- m.Params.Name
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-release
					send(map[string]any{"id": m.ID, "result": map[string]any{"content": []any{}}})
				}()
			default:
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			}
		})
	}
}

// Running lists the calls in flight oldest first, whatever their tools'
// names: "b", started first, comes before "a".
func TestRunningIsOldestFirst(t *testing.T) {
	t.Parallel()
	started := make(chan string, 2)
	release := make(chan struct{})
	var held sync.WaitGroup
	c, _, err := connectInMemory(t, "hold", ServerConfig{}, Options{}, holdServer(started, release, &held))
	if err != nil {
		t.Fatal(err)
	}
	var calls sync.WaitGroup
	defer func() {
		close(release)
		calls.Wait()
		held.Wait()
	}()
	for _, tool := range []string{"b", "a"} {
		calls.Add(1)
		go func() {
			defer calls.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, _ = c.callToolResult(ctx, tool, json.RawMessage(`{}`))
		}()
		select {
		case got := <-started:
			if got != tool {
				t.Fatalf("the server got a call of %q, want %q", got, tool)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the call of %q did not reach the server within 10 s", tool)
		}
	}
	r := c.Running()
	if len(r) != 2 || r[0].Tool != "b" || r[1].Tool != "a" || r[0].Server != "hold" || r[0].Since.After(r[1].Since) {
		t.Errorf("Running() = %+v, want b's call, then a's", r)
	}
}
