package mcpclient

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"
)

type eraMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// eraServer is the era-detection server on the far end of an in-memory
// pair (memtransport_test.go): mode picks how it opens (legacy,
// legacy-silent, no-versions, modern, modern-only, future, huge-discover,
// slow-modern-only, slow-dual), and its tools return the newer result
// shapes (structuredContent, input_required). The tool "seen" answers with
// every method received so far, in order; "init" with the params of the
// initialize it got; "legacy_ask" sends the client an elicitation/create
// mid-call (as 2025 servers do) and answers with the client's reply. The
// protocol is the point of these tests, not a process: it runs in the
// test's own.
type eraServer struct {
	mode string
	end  *memServer
	// slowOnce makes slow-modern-only answer its first server/discover too
	// late for the probe, as a server still starting up would.
	slowOnce sync.Once

	mu       sync.Mutex
	seen     []string
	opened   string // "", "legacy", "modern"
	initSeen json.RawMessage
	// replies routes the client's answers to this server's own requests.
	replies map[string]chan json.RawMessage
	nextReq int

	// done closes when the client's end is gone: the calls still running
	// (a sleep, a question to the client) stop, and serve waits for them,
	// so no goroutine of the server outlives the test.
	done  chan struct{}
	calls sync.WaitGroup
}

// sleep is the server taking d, cut short when the client is gone.
func (s *eraServer) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.done:
	}
}

// ask sends the client a request and waits for its answer (result or error).
func (s *eraServer) ask(method string, params any) json.RawMessage {
	s.mu.Lock()
	s.nextReq++
	id := "srv-" + strconv.Itoa(s.nextReq)
	ch := make(chan json.RawMessage, 1)
	s.replies[id] = ch
	s.mu.Unlock()
	s.send(map[string]any{"id": id, "method": method, "params": params})
	select {
	case r := <-ch:
		return r
	case <-s.done:
		return nil
	}
}

func (s *eraServer) send(v map[string]any) {
	v["jsonrpc"] = "2.0"
	b, _ := json.Marshal(v)
	_ = s.end.Send(b)
}

func (s *eraServer) fail(id json.RawMessage, code int, message string, data any) {
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	s.send(map[string]any{"id": id, "error": e})
}

// serve answers what arrives on end until it is closed.
func (s *eraServer) serve(end *memServer) {
	s.end, s.replies, s.done = end, map[string]chan json.RawMessage{}, make(chan struct{})
	for {
		b, err := end.Recv()
		if err != nil {
			close(s.done)
			s.calls.Wait()
			return
		}
		var m eraMsg
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		s.mu.Lock()
		s.seen = append(s.seen, m.Method)
		s.mu.Unlock()
		s.handle(m)
	}
}

func (s *eraServer) modern() bool {
	return s.mode == "modern" || s.mode == "modern-only" || s.mode == "future" || s.mode == "slow-modern-only" || s.mode == "slow-dual"
}

func (s *eraServer) handle(m eraMsg) {
	if len(m.ID) == 0 {
		return // notifications
	}
	if m.Method == "" { // the client's answer to one of our requests
		var id string
		json.Unmarshal(m.ID, &id)
		s.mu.Lock()
		ch := s.replies[id]
		delete(s.replies, id)
		s.mu.Unlock()
		if ch != nil {
			ch <- append(append(json.RawMessage(nil), m.Result...), m.Error...)
		}
		return
	}
	switch {
	case m.Method == "server/discover" && s.mode == "legacy":
		s.fail(m.ID, -32601, "Method not found", nil)
	case m.Method == "server/discover" && s.mode == "no-versions":
		// answers, but with no DiscoverResult: a legacy server's own result
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"capabilities": map[string]any{}}})
	case m.Method == "server/discover" && s.mode == "legacy-silent":
		// says nothing before initialize, as some legacy servers do
	case m.Method == "server/discover" && s.mode == "huge-discover":
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28"},
			"instructions": strings.Repeat("i", 300<<10)}})
	case m.Method == "server/discover" && s.mode == "slow-dual" && s.opened == "":
		// Like go-sdk behind a slow launcher: the first answer comes late,
		// and after it initialize is refused as a duplicate.
		s.sleep(600 * time.Millisecond)
		s.opened = "modern"
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28", "2025-03-26"}}})
	case m.Method == "server/discover" && s.mode == "slow-dual":
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28", "2025-03-26"}}})
	case m.Method == "server/discover" && s.mode == "slow-modern-only" && s.opened == "":
		first := false
		s.slowOnce.Do(func() { first = true })
		if first {
			return // never answered: the probe times out
		}
		s.opened = "modern"
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"supportedVersions": []string{"2026-07-28"}}})
	case m.Method == "initialize" && s.mode == "slow-modern-only":
		s.fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": "2025-03-26"})
	case m.Method == "server/discover" && s.mode == "future":
		s.fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2099-01-01"}, "requested": "2026-07-28"})
	case m.Method == "server/discover":
		s.opened = "modern"
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "complete",
			"supportedVersions": []string{"2026-07-28", "2025-11-25"}, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "era_server", "version": "1"}}})
	case m.Method == "initialize" && s.opened == "modern":
		s.fail(m.ID, 0, `duplicate "initialize" received`, nil)
	case m.Method == "initialize" && s.mode == "modern-only":
		s.fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": "2025-03-26"})
	case m.Method == "initialize":
		s.opened = "legacy"
		s.initSeen = m.Params
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{"tools": map[string]any{}}}})
	case s.opened == "" && s.modern() && !eraHasMeta(m.Params):
		s.fail(m.ID, -32602, "missing _meta", nil)
	case m.Method == "tools/list":
		s.send(map[string]any{"id": m.ID, "result": map[string]any{"tools": eraTools()}})
	case m.Method == "tools/call":
		s.calls.Add(1)
		go func() { defer s.calls.Done(); s.call(m) }()
	default:
		s.fail(m.ID, -32601, "Method not found", nil)
	}
}

func eraHasMeta(p json.RawMessage) bool {
	var v struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(p, &v)
	_, ok := v.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok
}

func eraTools() []any {
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

func eraText(t string) []any { return []any{map[string]any{"type": "text", "text": t}} }

func (s *eraServer) call(m eraMsg) {
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
		s.mu.Lock()
		res["content"] = eraText(strings.Join(s.seen, ","))
		s.mu.Unlock()
	case "meta":
		res["content"] = eraText(string(p.Meta))
	case "remote_schema":
		res["content"] = []any{}
		res["structuredContent"] = map[string]any{"temp": 21.5}
	case "init":
		s.mu.Lock()
		res["content"] = eraText(string(s.initSeen))
		s.mu.Unlock()
	case "legacy_ask":
		reply := s.ask("elicitation/create", map[string]any{"message": "Your GitHub login?",
			"requestedSchema": map[string]any{"type": "object", "required": []string{"name"},
				"properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		res["content"] = eraText("client said " + string(reply))
	case "weather":
		res["content"] = []any{}
		res["structuredContent"] = map[string]any{"temp": 21.5, "city": "Oslo"}
	case "weather_text":
		res["content"] = eraText("Sunny in Oslo")
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
			s.sleep(time.Duration(p.Arguments.MS) * time.Millisecond)
			s.send(map[string]any{"method": "notifications/progress", "params": map[string]any{
				"progressToken": meta.Token, "progress": i, "total": p.Arguments.Steps, "message": "step"}})
		}
		s.sleep(time.Duration(p.Arguments.MS) * time.Millisecond)
		res["content"] = eraText("done after " + string(meta.Token))
	case "odd_result":
		res["resultType"] = "partial"
	case "wants_elicitation": // refuses a client that did not declare it
		s.fail(m.ID, -32021, "Missing required client capability: elicitation", nil)
		return
	case "ask_rounds":
		// input_required Steps times (requestState counts them), then
		// complete; each round takes MS milliseconds.
		s.sleep(time.Duration(p.Arguments.MS) * time.Millisecond)
		n, _ := strconv.Atoi(strings.TrimPrefix(p.RequestState, "round-"))
		if n >= p.Arguments.Steps {
			res["content"] = eraText("complete after " + strconv.Itoa(n) + " rounds")
			break
		}
		res = map[string]any{"resultType": "input_required", "requestState": "round-" + strconv.Itoa(n+1),
			"inputRequests": map[string]any{"login": map[string]any{"method": "elicitation/create",
				"params": map[string]any{"mode": "form", "message": "Again?",
					"requestedSchema": map[string]any{"type": "object", "required": []string{"name"},
						"properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}}
	case "ask":
		if r, ok := p.InputResponses["login"]; ok && p.RequestState == "st-1" {
			res["content"] = eraText("answered " + string(r))
			break
		}
		res = map[string]any{"resultType": "input_required", "requestState": "st-1",
			"inputRequests": map[string]any{"login": map[string]any{"method": "elicitation/create",
				"params": map[string]any{"mode": "form", "message": "Your GitHub login?",
					"requestedSchema": map[string]any{"type": "object", "required": []string{"name"},
						"properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}}
	}
	s.send(map[string]any{"id": m.ID, "result": res})
}
