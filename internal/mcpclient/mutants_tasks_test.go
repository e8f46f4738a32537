package mcpclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// doneTaskServer is a modern Tasks server, in memory, whose one tool "t"
// is answered with a task already completed, carrying result as given.
func doneTaskServer(result string) func(*memServer) {
	return func(end *memServer) {
		serveRequests(end, func(b []byte, send func(map[string]any)) {
			var m taskMsg
			if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
				return
			}
			switch m.Method {
			case "server/discover":
				send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28"},
					"capabilities": map[string]any{"tools": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}})
			case "tools/list":
				send(map[string]any{"id": m.ID, "result": map[string]any{"tools": []any{
					map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}})
			case "tools/call":
				send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "task", "taskId": "task-1",
					"status": "completed", "result": json.RawMessage(result)}})
			default:
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			}
		})
	}
}

// A completed task's result is the call's only when it is a tool result:
// one with resultType "complete" (or none) is rendered; one that is not
// an object, or says another resultType, fails the call.
func TestCompletedTaskResultShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, result, text, err string }{
		{"complete", `{"resultType":"complete","content":[{"type":"text","text":"done"}]}`, "done", ""},
		{"no resultType", `{"content":[{"type":"text","text":"done"}]}`, "done", ""},
		{"not an object", `[1]`, "", "task task-1 completed without a tool result"},
		{"another resultType", `{"resultType":"input_required"}`, "", `task task-1 completed with resultType "input_required"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, err := connectInMemory(t, "tk", ServerConfig{}, Options{}, doneTaskServer(tc.result))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r, err := c.callToolResult(ctx, "t", json.RawMessage(`{}`))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, result %+v; want %q", err, r, tc.err)
				}
				return
			}
			if err != nil || !strings.Contains(r.Text, "\n"+tc.text+"\n") {
				t.Errorf("result %+v, err %v; want %q", r, err, tc.text)
			}
		})
	}
}

// serveRequests is an in-memory server's loop: each message end receives
// goes to handle, with send, which writes a JSON-RPC 2.0 message back.
func serveRequests(end *memServer, handle func(b []byte, send func(map[string]any))) {
	send := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		b, _ := json.Marshal(v)
		_ = end.Send(b)
	}
	for {
		b, err := end.Recv()
		if err != nil {
			return
		}
		handle(b, send)
	}
}

// answerDiscovery answers, for an in-memory modern server, server/discover
// (the 2026-07-28 revision, tools only) and tools/list (one page holding
// tools); false: the request is another, the caller's to answer.
func answerDiscovery(id json.RawMessage, method string, send func(map[string]any), tools ...map[string]any) bool {
	switch method {
	case "server/discover":
		send(map[string]any{"id": id, "result": map[string]any{"supportedVersions": []string{"2026-07-28"},
			"capabilities": map[string]any{"tools": map[string]any{}}}})
	case "tools/list":
		list := make([]any, len(tools))
		for i, t := range tools {
			list[i] = t
		}
		send(map[string]any{"id": id, "result": map[string]any{"tools": list}})
	default:
		return false
	}
	return true
}
