package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

func TestStreamTextAndWhatWasSent(t *testing.T) {
	srv := startFake(t, fakellm.Turn{
		Content:   "Hello there, this answer arrives in many small chunks.",
		ChunkSize: 3,
		Usage:     &fakellm.ScriptUsage{PromptTokens: 11, CompletionTokens: 7},
	})
	rec := &recorder{}
	c := newClient(srv, rec)
	req := simpleRequest()
	req.MaxTokens = 321
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Message.Content, "Hello there, this answer arrives in many small chunks."; got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
	if resp.Message.Role != llm.RoleAssistant || resp.FinishReason != "stop" || resp.Attempts != 1 {
		t.Errorf("role %q finish %q attempts %d", resp.Message.Role, resp.FinishReason, resp.Attempts)
	}
	want := llm.Usage{InputTokens: 11, OutputTokens: 7, Present: true}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.Timing.Total <= 0 || resp.Timing.TimeToFirstToken <= 0 || resp.Timing.TimeToFirstToken > resp.Timing.Total {
		t.Errorf("timing = %+v", resp.Timing)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/v1/chat/completions" {
		t.Errorf("sent %s %s", r.Method, r.Path)
	}
	if !r.Stream || !r.IncludeUsage {
		t.Errorf("stream=%t include_usage=%t, want both", r.Stream, r.IncludeUsage)
	}
	if r.MaxTokens != 321 || r.MaxCompletionTokens != 0 {
		t.Errorf("max_tokens=%d max_completion_tokens=%d", r.MaxTokens, r.MaxCompletionTokens)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	if r.Model != "test-model" || len(r.Messages) != 1 || r.Messages[0].Content != "hello" {
		t.Errorf("model %q messages %+v", r.Model, r.Messages)
	}
	if len(r.Tools) != 0 || strings.Contains(string(r.Body), `"tools"`) {
		t.Errorf("tools sent without any: %s", r.Body)
	}
}

func TestMaxTokensOmittedWhenZero(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: "ok"}, fakellm.Turn{Content: "ok"})
	c := newClient(srv, &recorder{})
	if _, err := c.Complete(context.Background(), simpleRequest()); err != nil {
		t.Fatal(err)
	}
	req := simpleRequest()
	req.Model, req.MaxTokens = "gpt-5-mini", 50 // reasoning family: max_completion_tokens
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if strings.Contains(string(reqs[0].Body), "max_tokens") {
		t.Errorf("max_tokens sent for 0: %s", reqs[0].Body)
	}
	if reqs[1].MaxTokens != 0 || reqs[1].MaxCompletionTokens != 50 {
		t.Errorf("gpt-5: max_tokens=%d max_completion_tokens=%d", reqs[1].MaxTokens, reqs[1].MaxCompletionTokens)
	}
}

func TestRequestMapping(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: "done"})
	c := newClient(srv, &recorder{})
	schema := `{"type":"object","properties":{"text":{"type":"string","description":"what to count"}},"required":["text"],"additionalProperties":false}`
	req := llm.Request{
		Model: "test-model",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "be brief"},
			{Role: llm.RoleUser, Content: "count"},
			{Role: llm.RoleAssistant, ReasoningContent: "thinking...", ToolCalls: []llm.ToolCall{
				{ID: "call_a", Type: "function", Function: llm.FunctionCall{Name: "demo__word_count", Arguments: `{"text":"a b"}`}},
				{ID: "call_b", Function: llm.FunctionCall{Name: "noop", Arguments: `{}`}},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_a", Content: "2"},
			{Role: llm.RoleTool, ToolCallID: "call_b", Content: ""},
		},
		Tools: []llm.ToolSpec{
			{Name: "demo__word_count", Description: "Counts words", Parameters: json.RawMessage(schema)},
			{Name: "noop"},
		},
	}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if len(r.Messages) != 5 {
		t.Fatalf("messages: %+v", r.Messages)
	}
	a := r.Messages[2]
	if a.Role != "assistant" || a.ReasoningContent != "thinking..." || len(a.ToolCalls) != 2 {
		t.Fatalf("assistant message: %+v", a)
	}
	wantCalls := []fakellm.RecordedToolCall{
		{ID: "call_a", Type: "function", Name: "demo__word_count", Arguments: `{"text":"a b"}`},
		{ID: "call_b", Type: "function", Name: "noop", Arguments: `{}`},
	}
	if !reflect.DeepEqual(a.ToolCalls, wantCalls) {
		t.Errorf("tool calls = %+v", a.ToolCalls)
	}
	if m := r.Messages[3]; m.Role != "tool" || m.ToolCallID != "call_a" || m.Content != "2" {
		t.Errorf("tool message: %+v", m)
	}
	if m := r.Messages[4]; !m.ContentPresent || m.Content != llm.EmptyContentPlaceholder || m.ToolCallID != "call_b" {
		t.Errorf("empty tool message must carry a content field: %+v", m)
	}
	if len(r.Tools) != 2 {
		t.Fatalf("tools: %+v", r.Tools)
	}
	tool := r.Tools[0]
	if tool.Type != "function" || tool.Name != "demo__word_count" || tool.Description != "Counts words" {
		t.Errorf("tool: %+v", tool)
	}
	if !jsonEqual(t, tool.Parameters, []byte(schema)) {
		t.Errorf("parameters = %s, want the raw schema %s", tool.Parameters, schema)
	}
	if !jsonEqual(t, r.Tools[1].Parameters, []byte(`{"type":"object","properties":{}}`)) {
		t.Errorf("default parameters = %s", r.Tools[1].Parameters)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestInvalidToolSchemaIsNotSent(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: "x"})
	c := newClient(srv, &recorder{})
	req := simpleRequest()
	req.Tools = []llm.ToolSpec{{Name: "bad", Parameters: json.RawMessage(`{"type":`)}}
	_, err := c.Complete(context.Background(), req)
	var re *llm.RequestError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), `tool "bad"`) {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestStreamToolCallSplitAcrossManyChunks(t *testing.T) {
	args := `{"text":"the quick brown fox jumps over the lazy dog — déjà vu","limit":3}`
	srv := startFake(t, fakellm.Turn{
		Content:   "Counting.",
		ToolCalls: []fakellm.ScriptCall{{ID: "call_xyz", Name: "demo__word_count", Arguments: json.RawMessage(args)}},
		ChunkSize: 1,
	})
	resp, err := newClient(srv, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "call_xyz", Type: "function", Function: llm.FunctionCall{Name: "demo__word_count", Arguments: args}}}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) {
		t.Errorf("tool calls = %+v\nwant %+v", resp.Message.ToolCalls, want)
	}
	if resp.Message.Content != "Counting." || resp.FinishReason != "tool_calls" {
		t.Errorf("content %q finish %q", resp.Message.Content, resp.FinishReason)
	}
}

func TestStreamParallelToolCallsInterleaved(t *testing.T) {
	calls := []fakellm.ScriptCall{
		{ID: "call_1", Name: "alpha", Arguments: json.RawMessage(`{"path":"a/very/long/path/to/somewhere.go"}`)},
		{ID: "call_2", Name: "beta", Arguments: json.RawMessage(`{"n":12345,"flags":["x","y","z"]}`)},
		{ID: "call_3", Name: "gamma", Arguments: json.RawMessage(`"not json at all"`)},
	}
	srv := startFake(t, fakellm.Turn{ToolCalls: calls, ChunkSize: 4, Interleave: true})
	resp, err := newClient(srv, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 3 {
		t.Fatalf("tool calls: %+v", resp.Message.ToolCalls)
	}
	for i, c := range calls {
		got := resp.Message.ToolCalls[i]
		if got.ID != c.ID || got.Function.Name != c.Name || got.Function.Arguments != c.ArgumentsText() || got.Type != "function" {
			t.Errorf("call %d = %+v, want %s %s %s", i, got, c.ID, c.Name, c.ArgumentsText())
		}
	}
	if resp.Message.Content != "" {
		t.Errorf("content = %q", resp.Message.Content)
	}
}

func TestNonStreaming(t *testing.T) {
	srv := startFake(t,
		fakellm.Turn{
			ReasoningContent: "hmm",
			ToolCalls:        []fakellm.ScriptCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}},
			Usage:            &fakellm.ScriptUsage{PromptTokens: 100, CompletionTokens: 20, CachedTokens: 64},
		},
		fakellm.Turn{Content: "plain", NoUsage: true},
	)
	c := newClient(srv, &recorder{}, nonStream)
	resp, err := c.Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Message{Role: "assistant", ReasoningContent: "hmm", ToolCalls: []llm.ToolCall{
		{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "f", Arguments: `{"a":1}`}},
	}}
	if !reflect.DeepEqual(resp.Message, want) {
		t.Errorf("message = %+v", resp.Message)
	}
	if u := (llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 64, Present: true}); resp.Usage != u {
		t.Errorf("usage = %+v, want %+v", resp.Usage, u)
	}
	if resp.FinishReason != "tool_calls" || resp.Timing.TimeToFirstToken != 0 || resp.Timing.Total <= 0 {
		t.Errorf("finish %q timing %+v", resp.FinishReason, resp.Timing)
	}

	resp, err = c.Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "plain" || resp.Usage.Present {
		t.Errorf("second: %q usage %+v", resp.Message.Content, resp.Usage)
	}
	for _, r := range srv.Requests() {
		if r.Stream || r.IncludeUsage || strings.Contains(string(r.Body), "stream_options") {
			t.Errorf("non-streaming request asked for a stream: %s", r.Body)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, stream := range []bool{true, false} {
		name := map[bool]string{true: "stream", false: "json"}[stream]
		t.Run(name+"/absent", func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Content: "x", NoUsage: true})
			resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage != (llm.Usage{}) {
				t.Errorf("usage = %+v, want absent", resp.Usage)
			}
		})
		t.Run(name+"/cached", func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Content: "x", Usage: &fakellm.ScriptUsage{PromptTokens: 50, CompletionTokens: 5, CachedTokens: 40}})
			resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if want := (llm.Usage{InputTokens: 50, OutputTokens: 5, CacheReadTokens: 40, Present: true}); resp.Usage != want {
				t.Errorf("usage = %+v, want %+v", resp.Usage, want)
			}
		})
		t.Run(name+"/generated", func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Content: strings.Repeat("word ", 40)})
			resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if !resp.Usage.Present || resp.Usage.InputTokens < 1 || resp.Usage.OutputTokens != 50 {
				t.Errorf("usage = %+v", resp.Usage)
			}
		})
	}
}

func TestSlowFirstTokenIsTTFT(t *testing.T) {
	const delay = 150 * time.Millisecond
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultSlowFirstToken, DelayMs: int(delay / time.Millisecond), Content: "late but fine", ChunkSize: 4, ChunkDelayMs: 5})
	resp, err := newClient(srv, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	tm := resp.Timing
	if tm.TimeToFirstToken < delay {
		t.Errorf("TTFT = %v, want >= %v", tm.TimeToFirstToken, delay)
	}
	if tm.Generation <= 0 || tm.Total < tm.TimeToFirstToken+tm.Generation-time.Millisecond {
		t.Errorf("timing = %+v", tm)
	}
	if resp.Message.Content != "late but fine" {
		t.Errorf("content %q", resp.Message.Content)
	}
}

// --- faults and retries ---

func TestRetriedStatuses(t *testing.T) {
	cases := []struct {
		name  string
		fault fakellm.Turn
	}{
		{"500", fakellm.Turn{Fault: fakellm.FaultServerError}},
		{"502", fakellm.Turn{Fault: fakellm.FaultBadGateway}},
		{"503", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "503"}},
		{"504", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "504"}},
		{"429 without Retry-After", fakellm.Turn{Fault: fakellm.FaultRateLimit}},
	}
	for _, tc := range cases {
		for _, stream := range []bool{true, false} {
			t.Run(tc.name+map[bool]string{true: "/stream", false: "/json"}[stream], func(t *testing.T) {
				srv := startFake(t, tc.fault, fakellm.Turn{Content: "recovered"})
				rec := &recorder{}
				resp, err := newClient(srv, rec, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
				if err != nil {
					t.Fatal(err)
				}
				if resp.Message.Content != "recovered" || resp.Attempts != 2 {
					t.Errorf("content %q attempts %d", resp.Message.Content, resp.Attempts)
				}
				// Equal jitter with rand 0.5: base 1 s → 0.5 s + 0.25 s.
				if w := rec.Waits(); !reflect.DeepEqual(w, []time.Duration{750 * time.Millisecond}) {
					t.Errorf("waits = %v", w)
				}
				if r := rec.Retries(); len(r) != 1 {
					t.Errorf("OnRetry calls = %v", r)
				}
				if n := len(srv.Requests()); n != 2 {
					t.Errorf("%d requests", n)
				}
			})
		}
	}
}

func TestRetryAfter(t *testing.T) {
	base := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	cases := []struct {
		arg  string
		want time.Duration
	}{
		{"2", 2 * time.Second},
		{"0", 0},
		{"3600", llm.MaxRetryAfter},
		{base.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second},
		{base.Add(-time.Hour).Format(http.TimeFormat), 0},
		{base.Add(time.Hour).Format(http.TimeFormat), llm.MaxRetryAfter},
		{"soon", 750 * time.Millisecond}, // unreadable: backoff
	}
	for _, tc := range cases {
		t.Run(tc.arg, func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultRateLimit, FaultArg: tc.arg}, fakellm.Turn{Content: "ok"})
			rec := &recorder{}
			c := newClient(srv, rec, func(o *llm.Options) { o.Now = func() time.Time { return base } })
			resp, err := c.Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Attempts != 2 {
				t.Errorf("attempts %d", resp.Attempts)
			}
			if w := rec.Waits(); !reflect.DeepEqual(w, []time.Duration{tc.want}) {
				t.Errorf("waits = %v, want [%v]", w, tc.want)
			}
			var se *llm.StatusError
			if r := rec.Retries(); len(r) != 1 || !errors.As(r[0], &se) || se.Status != 429 || !errors.Is(r[0], llm.ErrRateLimited) {
				t.Errorf("retry errors = %v", r)
			}
		})
	}
}

func TestBackoffDoubles(t *testing.T) {
	srv := startFake(t,
		fakellm.Turn{Fault: fakellm.FaultServerError},
		fakellm.Turn{Fault: fakellm.FaultServerError},
		fakellm.Turn{Fault: fakellm.FaultServerError},
		fakellm.Turn{Content: "fourth time lucky"},
	)
	rec := &recorder{}
	resp, err := newClient(srv, rec, func(o *llm.Options) { o.Rand = func() float64 { return 0 } }).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Attempts != 4 {
		t.Errorf("attempts = %d", resp.Attempts)
	}
	// rand 0: the floor of equal jitter, half of 1 s, 2 s, 4 s.
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}
	if w := rec.Waits(); !reflect.DeepEqual(w, want) {
		t.Errorf("waits = %v, want %v", w, want)
	}
}

func TestNotRetried(t *testing.T) {
	cases := []struct {
		name  string
		turn  fakellm.Turn
		check func(t *testing.T, err error)
	}{
		{"400", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "400"}, func(t *testing.T, err error) {
			var se *llm.StatusError
			if !errors.As(err, &se) || se.Status != 400 {
				t.Fatalf("err = %#v", err)
			}
			if want := "llm: Bad Request (status 400): fakellm: scripted HTTP 400 (Bad Request)"; err.Error() != want {
				t.Errorf("text = %q, want %q", err.Error(), want)
			}
		}},
		{"401", fakellm.Turn{Fault: fakellm.FaultUnauthorized}, func(t *testing.T, err error) {
			var ae *llm.AuthError
			if !errors.As(err, &ae) || ae.Status != 401 || ae.KeySource != "ODEK_API_KEY" || !errors.Is(err, llm.ErrAuth) {
				t.Fatalf("err = %#v", err)
			}
			if want := "llm: authentication failed (HTTP 401) using the key from ODEK_API_KEY; check that the key is valid for this endpoint"; err.Error() != want {
				t.Errorf("text = %q", err.Error())
			}
		}},
		{"403", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "403"}, func(t *testing.T, err error) {
			var ae *llm.AuthError
			if !errors.As(err, &ae) || ae.Status != 403 || !strings.Contains(err.Error(), "ODEK_API_KEY") {
				t.Fatalf("err = %v", err)
			}
		}},
		{"404", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "404"}, func(t *testing.T, err error) {
			var se *llm.StatusError
			if !errors.As(err, &se) || se.Status != 404 {
				t.Fatalf("err = %v", err)
			}
			want := regexp.MustCompile(`^llm: Not Found \(status 404\) from http://127\.0\.0\.1:\d+/v1/chat/completions for model "test-model": ` +
				`fakellm: scripted HTTP 404 \(Not Found\); check base_url and model$`)
			if !want.MatchString(err.Error()) {
				t.Errorf("text = %q", err.Error())
			}
		}},
		{"422", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "422"}, func(t *testing.T, err error) {
			var se *llm.StatusError
			if !errors.As(err, &se) || se.Status != 422 {
				t.Fatalf("err = %v", err)
			}
		}},
		{"context length", fakellm.Turn{Fault: fakellm.FaultContextLength}, func(t *testing.T, err error) {
			var ce *llm.ContextLengthError
			if !errors.As(err, &ce) || ce.Status != 400 || !errors.Is(err, llm.ErrContextLength) {
				t.Fatalf("err = %#v", err)
			}
			if !strings.Contains(err.Error(), "maximum context length is 8192") {
				t.Errorf("text = %q", err.Error())
			}
		}},
		{"not a stream", fakellm.Turn{Fault: fakellm.FaultMalformedSSE, FaultArg: "<html>Welcome to nginx!</html>\n"}, func(t *testing.T, err error) {
			var me *llm.MalformedResponseError
			if !errors.As(err, &me) || me.What != "SSE stream" || !errors.Is(err, llm.ErrMalformedResponse) {
				t.Fatalf("err = %#v", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startFake(t, tc.turn, fakellm.Turn{Content: "must not be reached"})
			rec := &recorder{}
			resp, err := newClient(srv, rec).Complete(context.Background(), simpleRequest())
			if err == nil {
				t.Fatalf("no error; resp %+v", resp)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error leaks the key: %v", err)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d attempts, want exactly 1", n)
			}
			if len(rec.Waits()) != 0 {
				t.Errorf("waited: %v", rec.Waits())
			}
			tc.check(t, err)
		})
	}
}

func TestAuthErrorWithoutKey(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultUnauthorized})
	c := newClient(srv, &recorder{}, func(o *llm.Options) { o.APIKey, o.KeySource = "", "" })
	_, err := c.Complete(context.Background(), simpleRequest())
	if err == nil || !strings.Contains(err.Error(), "no API key is configured") {
		t.Fatalf("err = %v", err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

// A bad SSE data line, or a JSON body cut short, is retried like a dropped
// stream; a body that is not the protocol at all (an HTML page) is not.
func TestMalformedRetried(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "json"}[stream], func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultMalformedSSE}, fakellm.Turn{Content: "recovered"})
			rec := &recorder{}
			resp, err := newClient(srv, rec, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "recovered" || resp.Attempts != 2 {
				t.Errorf("content %q attempts %d", resp.Message.Content, resp.Attempts)
			}
			var me *llm.MalformedResponseError
			what := map[bool]string{true: "SSE chunk", false: "response JSON"}[stream]
			if r := rec.Retries(); len(r) != 1 || !errors.As(r[0], &me) || me.What != what || !me.Transient {
				t.Errorf("retried errors = %v", r)
			}
		})
	}
	t.Run("html", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultMalformedSSE, FaultArg: "<html>502</html>"}, fakellm.Turn{Content: "unused"})
		_, err := newClient(srv, &recorder{}, nonStream).Complete(context.Background(), simpleRequest())
		var me *llm.MalformedResponseError
		if !errors.As(err, &me) || me.What != "response JSON" || me.Transient {
			t.Fatalf("err = %#v", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d attempts", n)
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultMalformedSSE}, fakellm.Turn{Fault: fakellm.FaultMalformedSSE})
		_, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.MaxAttempts = 2 }).Complete(context.Background(), simpleRequest())
		if err == nil || !strings.Contains(err.Error(), "retry exhausted (2 attempts) calling ") || !strings.Contains(err.Error(), ": malformed SSE chunk: ") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestRetryExhausted(t *testing.T) {
	t.Run("500", func(t *testing.T) {
		var turns []fakellm.Turn
		for range 5 {
			turns = append(turns, fakellm.Turn{Fault: fakellm.FaultServerError})
		}
		srv := startFake(t, turns...)
		rec := &recorder{}
		_, err := newClient(srv, rec).Complete(context.Background(), simpleRequest())
		var re *llm.RetryError
		if !errors.As(err, &re) || re.Attempts != 4 {
			t.Fatalf("err = %#v", err)
		}
		want := "llm: retry exhausted (4 attempts) calling " + srv.URL() + "/chat/completions: Internal Server Error (status 500): The server had an error while processing your request (fakellm)."
		if err.Error() != want {
			t.Errorf("text:\n got %q\nwant %q", err.Error(), want)
		}
		if n := len(srv.Requests()); n != 4 {
			t.Errorf("%d requests", n)
		}
		if w := rec.Waits(); len(w) != 3 {
			t.Errorf("waits = %v", w)
		}
		if errors.Is(err, llm.ErrRateLimited) {
			t.Error("500s classified as rate limited")
		}
	})
	t.Run("429 is rate_limited", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultRateLimit, FaultArg: "1"}, fakellm.Turn{Fault: fakellm.FaultRateLimit, FaultArg: "1"})
		_, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.MaxAttempts = 2 }).Complete(context.Background(), simpleRequest())
		var re *llm.RetryError
		if !errors.As(err, &re) || re.Attempts != 2 || !errors.Is(err, llm.ErrRateLimited) {
			t.Fatalf("err = %v", err)
		}
		if !strings.HasPrefix(err.Error(), "llm: retry exhausted (2 attempts) calling "+srv.URL()+"/chat/completions: Too Many Requests (status 429): Rate limit reached") {
			t.Errorf("text = %q", err.Error())
		}
	})
	t.Run("script exhausted message reaches the caller", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Content: "only one"})
		c := newClient(srv, &recorder{}, func(o *llm.Options) { o.MaxAttempts = 1 })
		if _, err := c.Complete(context.Background(), simpleRequest()); err != nil {
			t.Fatal(err)
		}
		_, err := c.Complete(context.Background(), simpleRequest())
		if err == nil || !strings.Contains(err.Error(), "fakellm: script exhausted after 1 turns") || !strings.Contains(err.Error(), "(1 attempt)") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("match failure", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Match: "tool result", Content: "x"})
		_, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.MaxAttempts = 1 }).Complete(context.Background(), simpleRequest())
		if err == nil || !strings.Contains(err.Error(), `fakellm: turn 1 expected "tool result" in last message, got "hello"`) {
			t.Fatalf("err = %v", err)
		}
		if srv.TurnsUsed() != 0 {
			t.Errorf("a failed match consumed the turn")
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		rec := &recorder{}
		c := llm.New(llm.Options{BaseURL: "http://" + addr + "/v1", Stream: true, Sleep: rec.sleep, MaxAttempts: 3})
		_, err = c.Complete(context.Background(), simpleRequest())
		var re *llm.RetryError
		var ne *llm.NetworkError
		if !errors.As(err, &re) || re.Attempts != 3 || !errors.As(err, &ne) || ne.MidStream {
			t.Fatalf("err = %#v", err)
		}
	})
}

func TestDropMidStreamRetried(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "json"}[stream], func(t *testing.T) {
			srv := startFake(t,
				fakellm.Turn{Fault: fakellm.FaultDropMidStream, Content: "this will be cut off somewhere in the middle", ChunkSize: 4},
				fakellm.Turn{Content: "complete answer"},
			)
			rec := &recorder{}
			resp, err := newClient(srv, rec, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "complete answer" || resp.Attempts != 2 {
				t.Errorf("content %q attempts %d", resp.Message.Content, resp.Attempts)
			}
			r := rec.Retries()
			var ne *llm.NetworkError
			if len(r) != 1 || !errors.As(r[0], &ne) || !ne.MidStream {
				t.Errorf("retry errors = %v", r)
			}
		})
	}
}

func TestCancelDuringBackoffReturnsPromptly(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultRateLimit, FaultArg: "30"}, fakellm.Turn{Content: "too late"})
	// The real sleep: the wait must be cut by ctx.
	c := llm.New(llm.Options{BaseURL: srv.URL(), Stream: true})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Complete(ctx, simpleRequest())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}

func TestCancelCauseIsKept(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultHang})
	c := newClient(srv, &recorder{})
	budget := errors.New("execution budget exceeded: runtime")
	ctx, cancel := context.WithTimeoutCause(context.Background(), 100*time.Millisecond, budget)
	defer cancel()
	start := time.Now()
	_, err := c.Complete(ctx, simpleRequest())
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, budget) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestProviderErrorInStreamRetried(t *testing.T) {
	rec := &recorder{}
	c := bodyClient("data: {\"error\":{\"message\":\"Overloaded\",\"type\":\"overloaded_error\"}}\n\n", true, rec)
	_, err := c.Complete(context.Background(), simpleRequest())
	var re *llm.RetryError
	var pe *llm.ProviderError
	if !errors.As(err, &re) || re.Attempts != 2 || !errors.As(err, &pe) || pe.Message != "Overloaded" {
		t.Fatalf("err = %#v", err)
	}

	c = bodyClient("data: {\"error\":{\"message\":\"prompt is too long: input length 300000 exceeds\",\"type\":\"invalid_request_error\"}}\n\n", true, rec)
	_, err = c.Complete(context.Background(), simpleRequest())
	if !errors.Is(err, llm.ErrContextLength) {
		t.Fatalf("err = %v", err)
	}
}

func TestTruncatedStreamWithoutFinishRetried(t *testing.T) {
	body := `data: {"choices":[{"index":0,"delta":{"content":"partial"},"finish_reason":null}]}` + "\n\n"
	_, err := bodyClient(body, true, &recorder{}).Complete(context.Background(), simpleRequest())
	var ne *llm.NetworkError
	if !errors.As(err, &ne) || !ne.MidStream || !strings.Contains(err.Error(), "retry exhausted (2 attempts) calling http://fake.invalid/v1/chat/completions: connection lost before the response was complete: stream ended before any finish_reason") {
		t.Fatalf("err = %v", err)
	}
	// With a finish_reason and no [DONE], the answer is accepted.
	body += `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	resp, err := bodyClient(body, true, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil || resp.Message.Content != "partial" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestNotAStream(t *testing.T) {
	_, err := bodyClient("<html><body>Welcome to nginx!</body></html>\n", true, &recorder{}).Complete(context.Background(), simpleRequest())
	var me *llm.MalformedResponseError
	if !errors.As(err, &me) || me.What != "SSE stream" || !strings.Contains(err.Error(), "no data events") {
		t.Fatalf("err = %v", err)
	}
}

func TestToolCallsWithoutIndexOrID(t *testing.T) {
	body := strings.Join([]string{
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"type":"function","function":{"name":"a","arguments":"{\"x\":"}}]}}]}`,
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}`,
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`data: [DONE]`, ``,
	}, "\n\n")
	resp, err := bodyClient(body, true, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	// No id: the loop names it; the client never invents one (it would repeat).
	want := []llm.ToolCall{{ID: "", Type: "function", Function: llm.FunctionCall{Name: "a", Arguments: `{"x":1}`}}}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) {
		t.Errorf("calls = %+v", resp.Message.ToolCalls)
	}
	if resp.Usage.Present {
		t.Errorf("usage present: %+v", resp.Usage)
	}
}

// TestConcurrentRetryAfter checks that Retry-After is captured per request
// when calls share a client.
func TestConcurrentRetryAfter(t *testing.T) {
	type key struct{}
	var mu sync.Mutex
	bad := []string{}
	tr := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		var body struct {
			Model string `json:"model"`
		}
		json.NewDecoder(req.Body).Decode(&body)
		// Model "m<N>": Retry-After N seconds.
		return &http.Response{
			StatusCode: 429, Status: "429 Too Many Requests",
			Header:  http.Header{"Retry-After": {strings.TrimPrefix(body.Model, "m")}, "Content-Type": {"application/json"}},
			Body:    nopBody(`{"error":{"message":"slow down","type":"requests"}}`),
			Request: req,
		}, nil
	})
	c := llm.New(llm.Options{
		BaseURL: "http://fake.invalid/v1", Stream: true, MaxAttempts: 3,
		HTTPClient: &http.Client{Transport: tr},
		Sleep: func(ctx context.Context, d time.Duration) error {
			want := ctx.Value(key{}).(time.Duration)
			if d != want {
				mu.Lock()
				bad = append(bad, d.String()+"!="+want.String())
				mu.Unlock()
			}
			return nil
		},
	})
	var wg sync.WaitGroup
	for i := 1; i <= 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.WithValue(context.Background(), key{}, time.Duration(i)*time.Second)
			req := simpleRequest()
			req.Model = "m" + strconv.Itoa(i)
			_, err := c.Complete(ctx, req)
			if !errors.Is(err, llm.ErrRateLimited) {
				mu.Lock()
				bad = append(bad, "err: "+err.Error())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("mismatches: %v", bad)
	}
}

func nopBody(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestJSONAnswerToAStreamRequest(t *testing.T) {
	c := llm.New(llm.Options{
		BaseURL: "http://fake.invalid/v1", Stream: true,
		HTTPClient: &http.Client{Transport: &fixedTransport{status: 200, header: http.Header{"Content-Type": {"application/json"}},
			body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}`}},
	})
	_, err := c.Complete(context.Background(), simpleRequest())
	if err == nil || !strings.Contains(err.Error(), `Content-Type "application/json": if the server does not stream, set stream to false`) {
		t.Fatalf("err = %v", err)
	}
}

func TestKeepAliveCommentsDoNotBreakAStream(t *testing.T) {
	body := strings.Repeat(": keep-alive\n\n", 2000) +
		`data: {"choices":[{"index":0,"delta":{"content":"thought hard"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	resp, err := bodyClient(body, true, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil || resp.Message.Content != "thought hard" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}
