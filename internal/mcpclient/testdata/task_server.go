//go:build ignore

// task_server is a modern (2026-07-28) stdio MCP server that serves the
// Tasks extension (io.modelcontextprotocol/tasks), for the tasks tests: no
// SDK odek's interop tests use serves it yet. Its tools answer with a task
// when the request declares the extension, and -32021 otherwise:
//   - slow {ms}: completes after ms milliseconds;
//   - ask: asks for a login (input_required) and completes with the answer;
//   - endless: never ends; "cancelled" lists the tasks tasks/cancel reached;
//   - broken: fails with a JSON-RPC error;
//   - caps: answers at once (no task) with the clientCapabilities it got;
//   - imposter {ms}: as slow, but tasks/get answers for another task id.
//
// -advertise=false leaves the extension out of server/discover (and still
// answers with tasks, which a client must refuse).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

var advertise = flag.Bool("advertise", true, "advertise the Tasks extension in server/discover")

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

type task struct {
	id, tool, status, answer string
	done                     time.Time
	polls                    int
	asked                    bool
}

var (
	mu        sync.Mutex
	out       = bufio.NewWriter(os.Stdout)
	tasks     = map[string]*task{}
	cancelled []string
	seq       int
)

func send(v map[string]any) {
	v["jsonrpc"] = "2.0"
	b, _ := json.Marshal(v)
	out.Write(append(b, '\n'))
	out.Flush()
}

func fail(id json.RawMessage, code int, message string, data any) {
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	send(map[string]any{"id": id, "error": e})
}

func text(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }

func main() {
	flag.Parse()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m msg
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		mu.Lock()
		handle(m)
		mu.Unlock()
	}
}

func handle(m msg) {
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
		if *advertise {
			caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
		}
		send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "complete",
			"supportedVersions": []string{"2026-07-28"}, "capabilities": caps}})
	case "tools/list":
		var tools []any
		for _, n := range []string{"slow", "ask", "endless", "broken", "caps", "cancelled", "imposter"} {
			tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
		}
		send(map[string]any{"id": m.ID, "result": map[string]any{"tools": tools}})
	case "tools/call":
		call(m, p.Name, p.Arguments.MS, p.Meta.Caps)
	case "tasks/get":
		t := tasks[p.TaskID]
		if t == nil {
			fail(m.ID, -32602, "Failed to retrieve task: Task not found", nil)
			return
		}
		t.polls++
		v := view(t)
		if t.tool == "imposter" {
			v["taskId"] = "task-of-someone-else"
		}
		send(map[string]any{"id": m.ID, "result": v})
	case "tasks/update":
		if t := tasks[p.TaskID]; t != nil && t.status == "input_required" {
			if r, ok := p.InputResponses["login"]; ok {
				t.answer, t.status, t.done = string(r), "working", time.Now().Add(100*time.Millisecond)
			}
		}
		send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "complete"}})
	case "tasks/cancel":
		cancelled = append(cancelled, p.TaskID)
		if t := tasks[p.TaskID]; t != nil {
			t.status = "cancelled"
		}
		send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "complete"}})
	default:
		fail(m.ID, -32601, "Method not found", nil)
	}
}

func call(m msg, name string, ms int, caps json.RawMessage) {
	switch name {
	case "caps":
		send(map[string]any{"id": m.ID, "result": map[string]any{"content": text(string(caps))}})
		return
	case "cancelled":
		send(map[string]any{"id": m.ID, "result": map[string]any{"content": text("cancelled: " + strings.Join(cancelled, ","))}})
		return
	}
	if !strings.Contains(string(caps), "io.modelcontextprotocol/tasks") && *advertise {
		fail(m.ID, -32021, "Missing required client capability", map[string]any{"requiredCapabilities": map[string]any{
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}})
		return
	}
	seq++
	t := &task{id: fmt.Sprintf("task-%d-%d", os.Getpid(), seq), tool: name, status: "working",
		done: time.Now().Add(time.Duration(ms) * time.Millisecond)}
	if name == "ask" {
		t.status = "input_required"
	}
	tasks[t.id] = t
	v := view(t)
	v["resultType"] = "task"
	send(map[string]any{"id": m.ID, "result": v})
}

// view is the task as tasks/get shows it now.
func view(t *task) map[string]any {
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
		v["result"] = map[string]any{"content": text(msg)}
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
