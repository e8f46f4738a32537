//go:build ignore

// era_server is a stdio MCP server for the era-detection tests: -era picks
// how it opens (legacy, legacy-silent, modern, modern-only, future), and its
// tools return the newer result shapes (structuredContent, input_required).
// The tool "seen" answers with every method received so far, in order;
// "init" with the params of the initialize it got; "legacy_ask" sends the
// client an elicitation/create mid-call (as 2025 servers do) and answers
// with the client's reply.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

var era = flag.String("era", "modern", "legacy | legacy-silent | no-versions | modern | modern-only | future | huge-discover | slow-modern-only | slow-dual")

// slowOnce makes slow-modern-only answer its first server/discover too late
// for the probe, as a server still starting up would.
var slowOnce sync.Once

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

var (
	mu       sync.Mutex
	seen     []string
	opened   string // "", "legacy", "modern"
	initSeen json.RawMessage
	out      = bufio.NewWriter(os.Stdout)
	// replies routes the client's answers to this server's own requests.
	replies = map[string]chan json.RawMessage{}
	nextReq int
)

// ask sends the client a request and waits for its answer (result or error).
func ask(method string, params any) json.RawMessage {
	mu.Lock()
	nextReq++
	id := "srv-" + strconv.Itoa(nextReq)
	ch := make(chan json.RawMessage, 1)
	replies[id] = ch
	mu.Unlock()
	send(map[string]any{"id": id, "method": method, "params": params})
	return <-ch
}

func send(v map[string]any) {
	v["jsonrpc"] = "2.0"
	b, _ := json.Marshal(v)
	mu.Lock()
	defer mu.Unlock()
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

func main() {
	flag.Parse()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m msg
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		mu.Lock()
		seen = append(seen, m.Method)
		mu.Unlock()
		handle(m)
	}
}

func modern() bool {
	return *era == "modern" || *era == "modern-only" || *era == "future" || *era == "slow-modern-only" || *era == "slow-dual"
}

func handle(m msg) {
	if len(m.ID) == 0 {
		return // notifications
	}
	if m.Method == "" { // the client's answer to one of our requests
		var id string
		json.Unmarshal(m.ID, &id)
		mu.Lock()
		ch := replies[id]
		delete(replies, id)
		mu.Unlock()
		if ch != nil {
			ch <- append(append(json.RawMessage(nil), m.Result...), m.Error...)
		}
		return
	}
	switch {
	case m.Method == "server/discover" && *era == "legacy":
		fail(m.ID, -32601, "Method not found", nil)
	case m.Method == "server/discover" && *era == "no-versions":
		// answers, but with no DiscoverResult: a legacy server's own result
		send(map[string]any{"id": m.ID, "result": map[string]any{"capabilities": map[string]any{}}})
	case m.Method == "server/discover" && *era == "legacy-silent":
		// says nothing before initialize, as some legacy servers do
	case m.Method == "server/discover" && *era == "huge-discover":
		send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28"},
			"instructions": strings.Repeat("i", 300<<10)}})
	case m.Method == "server/discover" && *era == "slow-dual" && opened == "":
		// Like go-sdk behind a slow launcher: the first answer comes late,
		// and after it initialize is refused as a duplicate.
		time.Sleep(600 * time.Millisecond)
		opened = "modern"
		send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28", "2025-03-26"}}})
	case m.Method == "server/discover" && *era == "slow-dual":
		send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28", "2025-03-26"}}})
	case m.Method == "server/discover" && *era == "slow-modern-only" && opened == "":
		first := false
		slowOnce.Do(func() { first = true })
		if first {
			return // never answered: the probe times out
		}
		opened = "modern"
		send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28"}}})
	case m.Method == "initialize" && *era == "slow-modern-only":
		fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": "2025-03-26"})
	case m.Method == "server/discover" && *era == "future":
		fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2099-01-01"}, "requested": "2026-07-28"})
	case m.Method == "server/discover":
		opened = "modern"
		send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "complete",
			"supportedVersions": []string{"2026-07-28", "2025-11-25"}, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "era_server", "version": "1"}}})
	case m.Method == "initialize" && opened == "modern":
		fail(m.ID, 0, `duplicate "initialize" received`, nil)
	case m.Method == "initialize" && *era == "modern-only":
		fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": "2025-03-26"})
	case m.Method == "initialize":
		opened = "legacy"
		initSeen = m.Params
		send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{"tools": map[string]any{}}}})
	case opened == "" && modern() && !hasMeta(m.Params):
		fail(m.ID, -32602, "missing _meta", nil)
	case m.Method == "tools/list":
		send(map[string]any{"id": m.ID, "result": map[string]any{"tools": tools()}})
	case m.Method == "tools/call":
		go call(m)
	default:
		fail(m.ID, -32601, "Method not found", nil)
	}
}

func hasMeta(p json.RawMessage) bool {
	var v struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(p, &v)
	_, ok := v.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok
}

func tools() []any {
	obj := map[string]any{"type": "object"}
	weather := map[string]any{"type": "object", "required": []string{"temp"},
		"properties": map[string]any{"temp": map[string]any{"type": "number"}}}
	return []any{
		map[string]any{"name": "seen", "inputSchema": obj},
		map[string]any{"name": "meta", "inputSchema": obj},
		map[string]any{"name": "weather", "inputSchema": obj, "outputSchema": weather,
			"annotations": map[string]any{"readOnlyHint": true}},
		map[string]any{"name": "weather_text", "inputSchema": obj, "outputSchema": weather},
		map[string]any{"name": "bad_weather", "inputSchema": obj, "outputSchema": weather},
		map[string]any{"name": "ask", "inputSchema": obj},
		map[string]any{"name": "ask_rounds", "inputSchema": obj},
		map[string]any{"name": "odd_result", "inputSchema": obj},
		map[string]any{"name": "progress", "inputSchema": obj},
		map[string]any{"name": "wants_elicitation", "inputSchema": obj},
		map[string]any{"name": "init", "inputSchema": obj},
		// An outputSchema odek refuses: it names another document.
		map[string]any{"name": "remote_schema", "inputSchema": obj,
			"outputSchema": map[string]any{"$ref": "https://schemas.example/weather.json"}},
		map[string]any{"name": "legacy_ask", "inputSchema": obj},
	}
}

func text(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }

func call(m msg) {
	var p struct {
		Name           string                     `json:"name"`
		Arguments      struct{ Steps, MS int }    `json:"arguments"`
		Meta           json.RawMessage            `json:"_meta"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   string                     `json:"requestState"`
	}
	json.Unmarshal(m.Params, &p)
	res := map[string]any{"resultType": "complete"}
	switch p.Name {
	case "seen":
		mu.Lock()
		res["content"] = text(strings.Join(seen, ","))
		mu.Unlock()
	case "meta":
		res["content"] = text(string(p.Meta))
	case "remote_schema":
		res["content"] = []any{}
		res["structuredContent"] = map[string]any{"temp": 21.5}
	case "init":
		mu.Lock()
		res["content"] = text(string(initSeen))
		mu.Unlock()
	case "legacy_ask":
		reply := ask("elicitation/create", map[string]any{"message": "Your GitHub login?",
			"requestedSchema": map[string]any{"type": "object", "required": []string{"name"},
				"properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		res["content"] = text("client said " + string(reply))
	case "weather":
		res["content"] = []any{}
		res["structuredContent"] = map[string]any{"temp": 21.5, "city": "Oslo"}
	case "weather_text":
		res["content"] = text("Sunny in Oslo")
		res["structuredContent"] = map[string]any{"temp": 21.5}
	case "bad_weather":
		res["content"] = []any{}
		res["structuredContent"] = map[string]any{"temp": "warm"}
	case "progress":
		// steps notifications, one every ms milliseconds, then the result.
		var meta struct {
			Token json.RawMessage `json:"progressToken"`
		}
		json.Unmarshal(p.Meta, &meta)
		for i := 1; i <= p.Arguments.Steps; i++ {
			time.Sleep(time.Duration(p.Arguments.MS) * time.Millisecond)
			send(map[string]any{"method": "notifications/progress", "params": map[string]any{
				"progressToken": meta.Token, "progress": i, "total": p.Arguments.Steps, "message": "step"}})
		}
		time.Sleep(time.Duration(p.Arguments.MS) * time.Millisecond)
		res["content"] = text("done after " + string(meta.Token))
	case "odd_result":
		res["resultType"] = "partial"
	case "wants_elicitation": // refuses a client that did not declare it
		fail(m.ID, -32021, "Missing required client capability: elicitation", nil)
		return
	case "ask_rounds":
		// input_required Steps times (requestState counts them), then
		// complete; each round takes MS milliseconds.
		time.Sleep(time.Duration(p.Arguments.MS) * time.Millisecond)
		n, _ := strconv.Atoi(strings.TrimPrefix(p.RequestState, "round-"))
		if n >= p.Arguments.Steps {
			res["content"] = text("complete after " + strconv.Itoa(n) + " rounds")
			break
		}
		res = map[string]any{"resultType": "input_required", "requestState": "round-" + strconv.Itoa(n+1),
			"inputRequests": map[string]any{"login": map[string]any{"method": "elicitation/create",
				"params": map[string]any{"mode": "form", "message": "Again?",
					"requestedSchema": map[string]any{"type": "object", "required": []string{"name"},
						"properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}}
	case "ask":
		if r, ok := p.InputResponses["login"]; ok && p.RequestState == "st-1" {
			res["content"] = text("answered " + string(r))
			break
		}
		res = map[string]any{"resultType": "input_required", "requestState": "st-1",
			"inputRequests": map[string]any{"login": map[string]any{"method": "elicitation/create",
				"params": map[string]any{"mode": "form", "message": "Your GitHub login?",
					"requestedSchema": map[string]any{"type": "object", "required": []string{"name"},
						"properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}}
	}
	send(map[string]any{"id": m.ID, "result": res})
}
