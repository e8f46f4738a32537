package fakellm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/syncbuf"
)

func start(t *testing.T, turns ...Turn) *Server {
	t.Helper()
	srv, err := Start(&Script{Turns: turns}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") || !strings.HasSuffix(srv.URL(), "/v1") {
		t.Fatalf("URL = %q", srv.URL())
	}
	return srv
}

const streamReq = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hello"}]}`
const plainReq = `{"model":"m","messages":[{"role":"user","content":"hello"}]}`

func post(t *testing.T, srv *Server, body string) (*http.Response, []byte, error) {
	t.Helper()
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// events splits an SSE body into data payloads.
func events(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		d, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("non-data line %q", line)
		}
		out = append(out, d)
	}
	return out
}

type chunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string  `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func TestStreamWireShape(t *testing.T) {
	srv := start(t, Turn{
		Content:   "Hi!",
		ToolCalls: []ScriptCall{{Name: "f", Arguments: json.RawMessage(`{"a":"bcdef"}`)}, {ID: "X", Name: "g"}},
		ChunkSize: 4,
		Usage:     &ScriptUsage{PromptTokens: 5, CompletionTokens: 6, CachedTokens: 2},
	})
	resp, body, err := post(t, srv, streamReq)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ev := events(t, body)
	if ev[len(ev)-1] != "[DONE]" {
		t.Fatalf("last event %q", ev[len(ev)-1])
	}
	var cs []chunk
	for _, e := range ev[:len(ev)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("%q: %v", e, err)
		}
		cs = append(cs, c)
	}
	if d := cs[0].Choices[0].Delta; d.Role != "assistant" {
		t.Errorf("first chunk %q", ev[0])
	}
	// Usage chunk: empty choices.
	u := cs[len(cs)-1]
	if len(u.Choices) != 0 || u.Usage == nil || u.Usage.PromptTokens != 5 || u.Usage.CompletionTokens != 6 || u.Usage.TotalTokens != 11 || u.Usage.PromptTokensDetails.CachedTokens != 2 {
		t.Errorf("usage chunk %q", ev[len(ev)-2])
	}
	fin := cs[len(cs)-2].Choices[0]
	if fin.FinishReason == nil || *fin.FinishReason != "tool_calls" {
		t.Errorf("finish chunk %q", ev[len(ev)-3])
	}
	// Reassemble.
	content := ""
	args := map[int]string{}
	ids := map[int]string{}
	for _, c := range cs[:len(cs)-2] {
		if c.Choices[0].FinishReason != nil {
			t.Errorf("finish_reason before the end")
		}
		d := c.Choices[0].Delta
		if d.Content != nil {
			content += *d.Content
		}
		for _, tc := range d.ToolCalls {
			if tc.Index == nil || tc.Function.Arguments == nil {
				t.Fatalf("tool delta without index/arguments")
			}
			if tc.ID != "" {
				ids[*tc.Index] = tc.ID + "/" + tc.Type + "/" + tc.Function.Name
			}
			args[*tc.Index] += *tc.Function.Arguments
		}
	}
	if content != "Hi!" || ids[0] != "call_1_1/function/f" || ids[1] != "X/function/g" || args[0] != `{"a":"bcdef"}` || args[1] != "{}" {
		t.Errorf("content %q ids %v args %v", content, ids, args)
	}
}

func TestStreamWithoutIncludeUsageOrWithOptOut(t *testing.T) {
	srv := start(t, Turn{Content: "a"}, Turn{Content: "b", NoUsage: true})
	for _, body := range []string{`{"model":"m","stream":true,"messages":[]}`, streamReq} {
		_, b, err := post(t, srv, body)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`"usage"`)) {
			t.Errorf("usage sent: %s", b)
		}
	}
}

func TestJSONWireShape(t *testing.T) {
	srv := start(t, Turn{Content: "", ToolCalls: []ScriptCall{{ID: "c", Name: "f", Arguments: json.RawMessage(`{}`)}}}, Turn{Content: "x", NoUsage: true})
	resp, b, err := post(t, srv, plainReq)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role      string          `json:"role"`
				Content   json.RawMessage `json:"content"`
				ToolCalls []struct {
					ID, Type string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(b, &v); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s: %v", resp.StatusCode, b, err)
	}
	m := v.Choices[0].Message
	if v.Object != "chat.completion" || string(m.Content) != "null" || m.ToolCalls[0].ID != "c" || v.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("body %s", b)
	}
	// Generated usage: request bytes / 4, output bytes / 4, at least 1.
	if v.Usage == nil || v.Usage.PromptTokens != len(plainReq)/4 || v.Usage.CompletionTokens != 1 {
		t.Errorf("usage %+v", v.Usage)
	}
	_, b, _ = post(t, srv, plainReq)
	if bytes.Contains(b, []byte(`"usage"`)) {
		t.Errorf("usage sent: %s", b)
	}
}

func TestFaultWireShapes(t *testing.T) {
	cases := []struct {
		turn   Turn
		status int
		check  func(t *testing.T, h http.Header, body []byte)
	}{
		{Turn{Fault: FaultRateLimit, FaultArg: "7"}, 429, func(t *testing.T, h http.Header, b []byte) {
			if h.Get("Retry-After") != "7" || !bytes.Contains(b, []byte(`"code":"rate_limit_exceeded"`)) {
				t.Errorf("%v %s", h, b)
			}
		}},
		{Turn{Fault: FaultRateLimit}, 429, func(t *testing.T, h http.Header, b []byte) {
			if _, ok := h["Retry-After"]; ok {
				t.Errorf("Retry-After without fault_arg")
			}
		}},
		{Turn{Fault: FaultServerError}, 500, func(t *testing.T, h http.Header, b []byte) {
			if !bytes.Contains(b, []byte(`"type":"server_error"`)) {
				t.Errorf("%s", b)
			}
		}},
		{Turn{Fault: FaultBadGateway}, 502, func(t *testing.T, h http.Header, b []byte) {
			if !bytes.Contains(b, []byte("502 Bad Gateway")) || h.Get("Content-Type") != "text/html" {
				t.Errorf("%s", b)
			}
		}},
		{Turn{Fault: FaultStatus, FaultArg: "504"}, 504, nil},
		{Turn{Fault: FaultContextLength}, 400, func(t *testing.T, h http.Header, b []byte) {
			var v struct {
				Error struct{ Message, Type, Code string }
			}
			json.Unmarshal(b, &v)
			if v.Error.Code != "context_length_exceeded" || v.Error.Type != "invalid_request_error" || !strings.HasPrefix(v.Error.Message, "This model's maximum context length is") {
				t.Errorf("%s", b)
			}
		}},
		{Turn{Fault: FaultUnauthorized}, 401, func(t *testing.T, h http.Header, b []byte) {
			if !bytes.Contains(b, []byte(`"code":"invalid_api_key"`)) {
				t.Errorf("%s", b)
			}
		}},
		{Turn{Fault: FaultMalformedSSE}, 200, func(t *testing.T, h http.Header, b []byte) {
			ev := events(t, b)
			if len(ev) != 3 || json.Valid([]byte(ev[1])) || ev[2] != "[DONE]" {
				t.Errorf("%q", ev)
			}
		}},
		{Turn{Fault: FaultMalformedSSE, FaultArg: "data: nope\n\n"}, 200, func(t *testing.T, h http.Header, b []byte) {
			if string(b) != "data: nope\n\n" {
				t.Errorf("%q", b)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.turn.Fault+"/"+c.turn.FaultArg, func(t *testing.T) {
			srv := start(t, c.turn)
			resp, b, err := post(t, srv, streamReq)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, b)
			}
			if c.check != nil {
				c.check(t, resp.Header, b)
			}
			if srv.TurnsUsed() != 1 {
				t.Errorf("fault turn not consumed")
			}
		})
	}
}

func TestDropMidStream(t *testing.T) {
	srv := start(t, Turn{Fault: FaultDropMidStream, FaultArg: "3", Content: strings.Repeat("x", 100), ChunkSize: 10}, Turn{Fault: FaultDropMidStream, Content: "abcdefgh"})
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(streamReq))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, body read err %v", resp.StatusCode, err)
	}
	if n := len(events(t, b)); n != 3 || bytes.Contains(b, []byte("[DONE]")) {
		t.Errorf("%d events before the drop: %q", n, b)
	}
	// Non-streaming: a short body under a full Content-Length.
	resp, err = http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(plainReq))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Error("non-streaming body read completed")
	}
}

func TestSlowFirstToken(t *testing.T) {
	t.Parallel()
	srv := start(t, Turn{Fault: FaultSlowFirstToken, DelayMs: 1000, Content: "late"})
	start := time.Now()
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(streamReq))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	headers := time.Since(start)
	b, _ := io.ReadAll(resp.Body)
	total := time.Since(start)
	// Headers come at once; the first chunk only after the delay (half of
	// it is left for a loaded machine to deliver the headers late).
	if total-headers < 500*time.Millisecond || total < time.Second || !bytes.Contains(b, []byte(`"late"`)) {
		t.Errorf("headers after %v, body after %v: %s", headers, total, b)
	}
}

func TestHangUntilClientLeavesOrServerCloses(t *testing.T) {
	srv := start(t, Turn{Fault: FaultHang}, Turn{Fault: FaultHang})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL()+"/chat/completions", strings.NewReader(plainReq))
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := post(t, srv, plainReq)
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); len(srv.Requests()) < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) { // the second request hangs in the server before Close
			t.Fatal("the second request never reached the server")
		}
	}
	srv.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("hanging request survived Close")
	}
}

func TestExhaustedMatchAndRecording(t *testing.T) {
	srv := start(t, Turn{Match: "tool said 42", Content: "ok"})
	_, b, _ := post(t, srv, plainReq)
	if !strings.Contains(string(b), `fakellm: turn 1 expected "tool said 42" in last message, got "hello"`) {
		t.Errorf("match body %q", b)
	}
	body := `{"model":"m2","stream":false,"max_tokens":99,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"tool said "},{"type":"text","text":"42"}]}],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}]}`
	resp, b, _ := post(t, srv, body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	resp, b, _ = post(t, srv, plainReq)
	if resp.StatusCode != 500 || strings.TrimSpace(string(b)) != "fakellm: script exhausted after 1 turns" {
		t.Errorf("%d %q", resp.StatusCode, b)
	}
	http.Get(srv.URL() + "/models")

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Turn != 0 || reqs[1].Turn != 1 || reqs[2].Turn != 0 || reqs[3].Path != "/v1/models" || reqs[3].Method != "GET" {
		t.Errorf("turns/paths: %+v", reqs)
	}
	r := reqs[1]
	if r.Model != "m2" || r.Stream || r.MaxTokens != 99 || len(r.Messages) != 3 || len(r.Tools) != 1 || string(r.Body) != body {
		t.Errorf("recorded %+v", r)
	}
	if m := r.Messages[1]; m.ContentPresent || m.ToolCalls[0] != (RecordedToolCall{ID: "c", Type: "function", Name: "f", Arguments: "{}"}) {
		t.Errorf("assistant %+v", m)
	}
	if m := r.Messages[2]; m.Content != "tool said 42" || m.ToolCallID != "c" {
		t.Errorf("tool %+v", m)
	}
	if tl := r.Tools[0]; tl.Name != "f" || tl.Description != "d" || string(tl.Parameters) != `{"type":"object"}` {
		t.Errorf("tool %+v", tl)
	}
}

func TestInvalidScriptAndBadRequests(t *testing.T) {
	ts := httptest.NewServer(New(&Script{Turns: []Turn{{Fault: "bogus"}}}).Handler())
	defer ts.Close()
	resp, _ := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(plainReq))
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !strings.Contains(string(b), `invalid script`) {
		t.Errorf("%d %s", resp.StatusCode, b)
	}

	ts2 := httptest.NewServer(New(&Script{Turns: []Turn{{Content: "a"}}}).Handler())
	defer ts2.Close()
	resp, _ = http.Post(ts2.URL+"/v1/chat/completions", "application/json", strings.NewReader("{not json"))
	if resp.StatusCode != 400 {
		t.Errorf("bad JSON → %d", resp.StatusCode)
	}
	resp, _ = http.Get(ts2.URL + "/v1/chat/completions")
	if resp.StatusCode != 405 {
		t.Errorf("GET → %d", resp.StatusCode)
	}
}

func TestLog(t *testing.T) {
	var buf syncbuf.Buffer
	srv, err := Start(&Script{Turns: []Turn{{ToolCalls: []ScriptCall{{Name: "f"}}}}}, "", WithLog(&buf))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	post(t, srv, streamReq)
	if got := buf.String(); got != "fakellm: POST /v1/chat/completions turn 1/1 stream=true messages=1 tools=0 -> tool_calls f\n" {
		t.Errorf("log %q", got)
	}
}

func TestRejectParams(t *testing.T) {
	s, err := ParseScript([]byte(`{"reject_params": ["response_format"], "turns": [{"content": "plain"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(s, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	withFormat := `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{}}}}`
	resp, body, err := post(t, srv, withFormat)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct{ Message, Type, Param, Code string }
	}
	if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(body, &e) != nil ||
		e.Error.Param != "response_format" || e.Error.Code != "unsupported_parameter" ||
		e.Error.Message != "Unsupported parameter: 'response_format' is not supported with this model." {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if srv.TurnsUsed() != 0 || len(srv.Requests()) != 1 || srv.Requests()[0].Turn != 0 {
		t.Fatalf("the rejected request consumed a turn: %d used", srv.TurnsUsed())
	}
	resp, body, err = post(t, srv, plainReq)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"plain"`) {
		t.Fatalf("%v %d %s", err, resp.StatusCode, body)
	}
	if _, err := ParseScript([]byte(`{"reject_params": ["messages"], "turns": [{}]}`)); err == nil ||
		!strings.Contains(err.Error(), `"messages" cannot be rejected`) {
		t.Fatalf("err = %v", err)
	}
}
