package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// taskServer is a modern (2026-07-28) MCP server of the Tasks extension
// (io.modelcontextprotocol/tasks) on the far end of an in-memory pair
// (memtransport_test.go), for the tasks tests: no SDK odek's interop tests
// use serves it yet. Its tools answer with a task when the request
// declares the extension, and -32021 otherwise:
//   - slow {ms}: completes after ms milliseconds;
//   - ask: asks for a login (input_required) and completes with the answer;
//   - endless: never ends; "cancelled" lists the tasks tasks/cancel reached;
//   - broken: fails with a JSON-RPC error;
//   - caps: answers at once (no task) with the clientCapabilities it got;
//   - imposter {ms}: as slow, but tasks/get answers for another task id.
//
// hidden leaves the extension out of server/discover (and still answers
// with tasks, which a client must refuse). The protocol is the point of
// these tests, not a process: it runs in the test's own.
type taskServer struct {
	hidden bool
	end    *memServer

	mu        sync.Mutex // one message is handled at a time
	tasks     map[string]*task
	cancelled []string
	seq       int
}

// taskServers numbers the servers, so that task ids differ between them
// as they differ between server processes.
var taskServers atomic.Int64

type task struct {
	id, tool, status, answer string
	done                     time.Time
	polls                    int
}

type taskMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

// serve answers what arrives on end until it is closed.
func (s *taskServer) serve(end *memServer) {
	s.end, s.tasks = end, map[string]*task{}
	n := taskServers.Add(1)
	for {
		b, err := end.Recv()
		if err != nil {
			return
		}
		var m taskMsg
		if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
			continue
		}
		s.mu.Lock()
		s.handle(n, m)
		s.mu.Unlock()
	}
}

func (s *taskServer) send(v map[string]any) {
	v["jsonrpc"] = "2.0"
	b, _ := json.Marshal(v)
	_ = s.end.Send(b)
}

func (s *taskServer) fail(id json.RawMessage, code int, message string, data any) {
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	s.send(map[string]any{"id": id, "error": e})
}

func (s *taskServer) handle(n int64, m taskMsg) {
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			MS int `json:"ms"`
		} `json:"arguments"`
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		Meta           struct {
			Caps json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "server/discover":
		caps := map[string]any{"tools": map[string]any{}}
		if !s.hidden {
			caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
		}
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "complete",
			"supportedVersions": []string{"2026-07-28"}, "capabilities": caps}})
	case "tools/list":
		var tools []any
		for _, n := range []string{"slow", "ask", "endless", "broken", "caps", "cancelled", "imposter"} {
			tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
		}
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"tools": tools}})
	case "tools/call":
		s.call(n, m, p.Name, p.Arguments.MS, p.Meta.Caps)
	case "tasks/get":
		t := s.tasks[p.TaskID]
		if t == nil {
			s.fail(m.ID, -32602, "Failed to retrieve task: Task not found", nil)
			return
		}
		t.polls++
		v := taskView(t)
		if t.tool == "imposter" {
			v["taskId"] = "task-of-someone-else"
		}
		s.send(map[string]any{"id": m.ID, "result": v})
	case "tasks/update":
		if t := s.tasks[p.TaskID]; t != nil && t.status == "input_required" {
			if r, ok := p.InputResponses["login"]; ok {
				t.answer, t.status, t.done = string(r), "working", time.Now().Add(100*time.Millisecond)
			}
		}
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "complete"}})
	case "tasks/cancel":
		s.cancelled = append(s.cancelled, p.TaskID)
		if t := s.tasks[p.TaskID]; t != nil {
			t.status = "cancelled"
		}
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "complete"}})
	default:
		s.fail(m.ID, -32601, "Method not found", nil)
	}
}

func (s *taskServer) call(n int64, m taskMsg, name string, ms int, caps json.RawMessage) {
	switch name {
	case "caps":
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"content": eraText(string(caps))}})
		return
	case "cancelled":
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"content": eraText("cancelled: " + strings.Join(s.cancelled, ","))}})
		return
	}
	if !strings.Contains(string(caps), "io.modelcontextprotocol/tasks") && !s.hidden {
		s.fail(m.ID, -32021, "Missing required client capability", map[string]any{"requiredCapabilities": map[string]any{
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}})
		return
	}
	s.seq++
	t := &task{id: fmt.Sprintf("task-%d-%d", n, s.seq), tool: name, status: "working",
		done: time.Now().Add(time.Duration(ms) * time.Millisecond)}
	if name == "ask" {
		t.status = "input_required"
	}
	s.tasks[t.id] = t
	v := taskView(t)
	v["resultType"] = "task"
	s.send(map[string]any{"id": m.ID, "result": v})
}

// taskView is the task as tasks/get shows it now.
func taskView(t *task) map[string]any {
	if t.status == "working" && t.tool != "endless" && time.Now().After(t.done) {
		t.status = "completed"
		if t.tool == "broken" {
			t.status = "failed"
		}
	}
	v := map[string]any{"resultType": "complete", "taskId": t.id, "status": t.status, "pollIntervalMs": 20,
		"createdAt": "2026-08-07T12:00:00Z", "lastUpdatedAt": "2026-08-07T12:00:00Z", "ttlMs": 60000,
		"statusMessage": fmt.Sprintf("%s after %d polls", t.status, t.polls)}
	switch t.status {
	case "completed":
		msg := fmt.Sprintf("done after %d polls", t.polls)
		if t.answer != "" {
			msg = "answered " + t.answer
		}
		v["result"] = map[string]any{"content": eraText(msg)}
	case "failed":
		v["error"] = map[string]any{"code": -32603, "message": "the build farm is down"}
	case "input_required":
		v["inputRequests"] = map[string]any{"login": map[string]any{"method": "elicitation/create",
			"params": map[string]any{"mode": "form", "message": "Your login?",
				"requestedSchema": map[string]any{"type": "object", "required": []string{"name"},
					"properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}
	}
	return v
}
