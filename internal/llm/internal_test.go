package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestBackoffEqualJitter(t *testing.T) {
	for failed := 1; failed <= 10; failed++ {
		b := RetryBase << (failed - 1)
		if b > MaxRetryAfter {
			b = MaxRetryAfter
		}
		lo, hi := backoff(failed, 0), backoff(failed, 0.999999)
		if lo != b/2 || hi < b*99/100 || hi >= b {
			t.Errorf("failed=%d: range [%v, %v], base %v", failed, lo, hi, b)
		}
	}
	for _, r := range []float64{7, 1, -0.1} { // out-of-range rand falls back to 0.5: the wait stays below b
		if got := backoff(1, r); got != 750*time.Millisecond {
			t.Errorf("backoff(1, %v) = %v", r, got)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"  ", 0, false},
		{"3", 3 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"61", MaxRetryAfter, true},
		{"1e300", MaxRetryAfter, true},
		{"NaN", 0, false},
		{"soon", 0, false},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second, true},
		{now.Add(-10 * time.Second).Format(http.TimeFormat), 0, true},
		{now.Add(2 * time.Hour).Format(http.TimeFormat), MaxRetryAfter, true},
		{now.Add(5 * time.Second).Format(time.RFC850), 5 * time.Second, true},
	}
	for _, c := range cases {
		got, ok := parseRetryAfter(c.in, now)
		if got != c.want || ok != c.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %t; want %v, %t", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestUsesMaxCompletionTokens(t *testing.T) {
	yes := []string{"o1", "o1-mini", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5.1", "GPT-6-astra", "openai/gpt-5", "gpt-10", "gpt-9", "/o3"}
	no := []string{"gpt-4o", "gpt-4.1", "gpt-3.5-turbo", "o1x", "llama3", "", "gpt-", "oo1"}
	checkModels(t, usesMaxCompletionTokens, yes, no, "want max_completion_tokens", "want max_tokens")
}

// checkModels requires is to hold for every name of yes and for none of no.
func checkModels(t *testing.T, is func(string) bool, yes, no []string, wantYes, wantNo string) {
	t.Helper()
	for _, m := range yes {
		if !is(m) {
			t.Errorf("%q: %s", m, wantYes)
		}
	}
	for _, m := range no {
		if is(m) {
			t.Errorf("%q: %s", m, wantNo)
		}
	}
}

// OpenAI's non-reasoning chat families refuse a reasoning_effort, named
// bare or behind a router's prefix.
func TestRefusesReasoningEffort(t *testing.T) {
	yes := []string{"gpt-4o", "GPT-4.1-mini", "gpt-3.5-turbo", "chatgpt-4o-latest", "openai/gpt-4o", "/gpt-4o", "a/b/gpt-4"}
	no := []string{"gpt-5", "o3", "llama3", "", "my-gpt-4", "gpt-4o/llama"}
	checkModels(t, refusesReasoningEffort, yes, no, "want refused", "want accepted")
}

func TestContextLengthMarkers(t *testing.T) {
	for _, m := range contextLengthMarkers {
		msg := "Error: " + strings.ToUpper(m) + " (details)"
		if !isContextLengthText("", msg) {
			t.Errorf("%q not detected", msg)
		}
	}
	if isContextLengthText("rate limit reached", "invalid model") {
		t.Error("false positive")
	}
	// A 429 that mentions tokens is a rate limit, not a context-length error.
	c := &Client{keySource: "X", now: time.Now}
	err := c.statusError(429, "too many tokens per minute", "", "", "")
	if !errors.Is(err, ErrRateLimited) || errors.Is(err, ErrContextLength) {
		t.Errorf("429 → %v", err)
	}
	err = c.statusError(413, "", "", `{"detail":"Input is too long for requested model."}`, "")
	if !errors.Is(err, ErrContextLength) {
		t.Errorf("413 → %v", err)
	}
}

func TestCapString(t *testing.T) {
	if got := capString("héllo", 2); got != "h…" { // never splits é
		t.Errorf("got %q", got)
	}
	if got := capString("abc", 3); got != "abc" {
		t.Errorf("got %q", got)
	}
	// Bytes that are all continuation bytes (not UTF-8) leave nothing to keep.
	if got := capString(strings.Repeat("\x80", 10), 4); got != "…" {
		t.Errorf("got %q", got)
	}
	long := strings.Repeat("x", 2000)
	se := &StatusError{Status: 500, Body: long}
	if n := len(se.Error()); n > 600 {
		t.Errorf("status error message is %d bytes", n)
	}
}

// TestBodyCap checks that a response over the limit fails with a clear,
// non-retried error, streaming or not.
func TestBodyCap(t *testing.T) {
	old := maxResponseBytes
	maxResponseBytes = 4096
	t.Cleanup(func() { maxResponseBytes = old })

	chunk := `data: {"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("a", 100) + `"}}]}` + "\n\n"
	streamBody := strings.Repeat(chunk, 100)
	jsonBody := `{"choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("a", 10000) + `"}}]}`
	for _, tc := range []struct {
		stream bool
		body   string
	}{{true, streamBody}, {false, jsonBody}} {
		attempts := 0
		c := New(Options{
			BaseURL: "http://fake.invalid/v1", Stream: tc.stream,
			HTTPClient: &http.Client{Transport: rtFunc(func(r *http.Request) (*http.Response, error) {
				attempts++
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.body)), Request: r}, nil
			})},
			Sleep: func(context.Context, time.Duration) error { return nil },
		})
		_, err := c.Complete(context.Background(), Request{Model: "m"})
		if !errors.Is(err, errBodyTooLarge) || !errors.Is(err, ErrMalformedResponse) || attempts != 1 {
			t.Errorf("stream=%t: err = %v after %d attempts", tc.stream, err, attempts)
		}
	}
}

// A capped body hands back exactly its limit, then errBodyTooLarge on that
// read and on every later one, never a byte past the limit nor a count
// outside 0..len(p) (io.Reader's contract: bufio panics on a negative one).
func TestObservedBodyStopsAtTheCap(t *testing.T) {
	for _, keep := range []bool{false, true} {
		_, dog, stop := startAttempt(context.Background(), Timeouts{})
		defer stop()
		ex := &exchange{keepBody: keep, dog: dog}
		b := &observedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("b", 25))), left: 10, ex: ex, keep: keep}
		got, err := io.ReadAll(b)
		if string(got) != strings.Repeat("b", 10) || !errors.Is(err, errBodyTooLarge) {
			t.Fatalf("keep=%t: ReadAll = %q, %v; want the 10 bytes of the cap and errBodyTooLarge", keep, got, err)
		}
		for i := 0; i < 3; i++ {
			p := make([]byte, 8)
			if n, err := b.Read(p); n != 0 || !errors.Is(err, errBodyTooLarge) {
				t.Fatalf("keep=%t: read %d after the cap = %d, %v; want 0, errBodyTooLarge", keep, i, n, err)
			}
		}
		if keep && ex.body.String() != strings.Repeat("b", 10) {
			t.Fatalf("kept body = %q, want the 10 bytes of the cap", ex.body.String())
		}
	}
}

// Whole calls sent without an index each start a call of their own after
// the highest one so far, in the order they came (map order must not
// matter: the stream is assembled 20 times).
func TestAssemblerCallsWithoutIndex(t *testing.T) {
	const n = 8
	for round := 0; round < 20; round++ {
		var a assembler
		for i := 0; i < n; i++ {
			raw := fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c%d","function":{"name":"t%d","arguments":"{}"}}]}}]}`, i, i)
			if _, err := a.add([]byte(raw)); err != nil {
				t.Fatal(err)
			}
		}
		calls := a.message().ToolCalls
		if len(calls) != n {
			t.Fatalf("round %d: %d calls, want %d: %+v", round, len(calls), n, calls)
		}
		for i, c := range calls {
			if c.ID != fmt.Sprintf("c%d", i) || c.Function.Name != fmt.Sprintf("t%d", i) || c.Function.Arguments != "{}" {
				t.Fatalf("round %d: call %d = %+v", round, i, c)
			}
		}
	}
}

// A zero wait on a cancelled ctx reports the cancel, every time.
func TestSleepCtxZeroWaitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 64; i++ {
		if err := sleepCtx(ctx, 0); !errors.Is(err, context.Canceled) {
			t.Fatalf("try %d: sleepCtx = %v, want context.Canceled", i, err)
		}
	}
	if err := sleepCtx(context.Background(), 0); err != nil {
		t.Fatalf("sleepCtx(0) = %v", err)
	}
}

// A body of exactly the cap is read whole, without an error.
func TestObservedBodyAtTheCapIsWhole(t *testing.T) {
	b := &observedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("b", 10))), left: 10}
	if got, err := io.ReadAll(b); len(got) != 10 || err != nil {
		t.Fatalf("ReadAll = %d bytes, %v; want all 10 and no error", len(got), err)
	}
}

// Only a non-streaming call's success body is kept (its dropped fields are
// read from it): not a stream's, not an error's, not a redirect's.
func TestObserverKeepsOnlyPlainSuccessBodies(t *testing.T) {
	for _, tc := range []struct {
		keepBody bool
		status   int
		kept     bool
	}{{true, 200, true}, {true, 299, true}, {true, 300, false}, {true, 500, false}, {false, 200, false}} {
		_, dog, stop := startAttempt(context.Background(), Timeouts{})
		ex := &exchange{keepBody: tc.keepBody, dog: dog}
		o := &observer{base: rtFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: tc.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("body")), Request: r}, nil
		}), ex: ex}
		req, _ := http.NewRequest("POST", "http://fake.invalid/v1", nil)
		resp, err := o.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(resp.Body); string(got) != "body" || err != nil {
			t.Fatalf("body %q, %v", got, err)
		}
		stop()
		if kept := string(ex.kept()) == "body"; kept != tc.kept || (!kept && len(ex.kept()) != 0) {
			t.Errorf("keepBody=%t status %d: kept %q", tc.keepBody, tc.status, ex.kept())
		}
	}
}

// Only the idle phase moves with activity, and only when it is armed; a
// body read that brought bytes is activity, the read that meets EOF is not.
func TestWatchdogTouch(t *testing.T) {
	_, dog, stop := startAttempt(context.Background(), Timeouts{Connect: time.Hour, FirstByte: time.Hour, Idle: time.Hour})
	defer stop()
	past := time.Now().Add(-time.Minute)
	dog.arm(PhaseFirstByte, time.Hour)
	dog.mu.Lock()
	dog.deadline = past
	dog.mu.Unlock()
	dog.touch()
	if dog.deadline != past {
		t.Fatalf("first-byte phase moved to %v", dog.deadline)
	}
	dog.arm(PhaseIdle, -1) // disabled
	dog.touch()
	if !dog.deadline.IsZero() {
		t.Fatalf("a disabled idle timeout was armed by a touch: %v", dog.deadline)
	}
	dog.arm(PhaseIdle, time.Hour)
	ex := &exchange{dog: dog}
	b := &observedBody{rc: io.NopCloser(strings.NewReader("data")), left: 100, ex: ex}
	dog.mu.Lock()
	dog.deadline = past
	dog.mu.Unlock()
	if n, err := b.Read(make([]byte, 16)); n != 4 || err != nil {
		t.Fatalf("read %d, %v", n, err)
	}
	if !dog.deadline.After(time.Now()) {
		t.Fatalf("a read of 4 bytes left the idle deadline at %v", dog.deadline)
	}
	dog.mu.Lock()
	dog.deadline = past
	dog.mu.Unlock()
	if n, err := b.Read(make([]byte, 16)); n != 0 || err != io.EOF {
		t.Fatalf("read %d, %v; want EOF", n, err)
	}
	if dog.deadline != past {
		t.Fatalf("the EOF read moved the idle deadline to %v", dog.deadline)
	}
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestAssemblerSplitNamesAndNewIDs(t *testing.T) {
	var a assembler
	raw := []string{
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"A","function":{"name":"read_","arguments":"{"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"name":"file","arguments":"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"B","function":{"name":"x","arguments":"[]"}}]}}]}`,
		`{"choices":[{"index":1,"delta":{"content":"other choice ignored"}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning":"r1","reasoning_content":"r2"},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"cache_creation_input_tokens":9,"cache_read_input_tokens":1}}`,
	}
	for _, r := range raw {
		if _, err := a.add([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	m := a.message()
	if len(m.ToolCalls) != 2 || m.ToolCalls[0].Function.Name != "read_file" || m.ToolCalls[0].Function.Arguments != "{}" ||
		m.ToolCalls[1].ID != "B" || m.ToolCalls[1].Function.Arguments != "[]" {
		t.Errorf("calls = %+v", m.ToolCalls)
	}
	if m.Content != "" || m.ReasoningContent != "r2r1" {
		t.Errorf("content %q reasoning %q", m.Content, m.ReasoningContent)
	}
	if u := usageOf(a.usage); u != (Usage{InputTokens: 3, OutputTokens: 4, CacheReadTokens: 1, CacheCreationTokens: 9, Present: true}) {
		t.Errorf("usage = %+v", u)
	}
}

// Cache counts inside prompt_tokens (the OpenAI wire format's rule) are
// taken out of InputTokens once; counts over the prompt mean an endpoint
// that counted them apart already. Counting them twice made the input budget
// stop runs early and the cost too high.
func TestUsageCacheSplit(t *testing.T) {
	cases := []struct {
		name, body string
		want       Usage
	}{
		{"openai", `{"prompt_tokens":2006,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":1920}}`,
			Usage{InputTokens: 86, OutputTokens: 300, CacheReadTokens: 1920, Present: true}},
		// OpenRouter's usage-accounting example: a cache write of 100 of 194.
		{"openrouter write", `{"prompt_tokens":194,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100},"cost":0.95}`,
			Usage{InputTokens: 94, OutputTokens: 2, CacheCreationTokens: 100, CostUSD: 0.95, CostReported: true, Present: true}},
		{"all cached", `{"prompt_tokens":128,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":128}}`,
			Usage{InputTokens: 0, OutputTokens: 1, CacheReadTokens: 128, Present: true}},
		{"counted apart", `{"prompt_tokens":50,"completion_tokens":1,"cache_read_input_tokens":8000}`,
			Usage{InputTokens: 50, OutputTokens: 1, CacheReadTokens: 8000, Present: true}},
		{"no cache", `{"prompt_tokens":7,"completion_tokens":1}`, Usage{InputTokens: 7, OutputTokens: 1, Present: true}},
	}
	for _, c := range cases {
		var w wireUsage
		if err := json.Unmarshal([]byte(c.body), &w); err != nil {
			t.Fatal(err)
		}
		if got := usageOf(&w); got != c.want {
			t.Errorf("%s: usage = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestReasoningEffortRule(t *testing.T) {
	cases := []struct {
		model, thinking, effort string
		budget                  int
		want                    string
		warns                   int
	}{
		{"gpt-5", "", "", 0, "", 0},
		{"gpt-5", "high", "", 0, "high", 0},
		{"gpt-5", "low", "medium", 0, "medium", 0},
		{"qwen3:8b", "medium", "", 0, "medium", 0},
		{"deepseek-reasoner", "enabled", "", 0, "medium", 0}, // the default budget, 5000 tokens
		{"o3-mini", "disabled", "high", 0, "high", 0},        // reasoning_effort wins
		{"qwen3:8b", "off", "", 0, "none", 0},
		{"gemma3:4b", "disabled", "", 0, "none", 0},
		{"gpt-4o", "off", "", 0, "", 0}, // refuses the field and does not think: nothing to say
		{"gpt-4o", "high", "", 0, "", 1},
		{"openai/gpt-4.1-mini", "", "low", 0, "", 1},
		// A budget maps to the effort whose budget covers it.
		{"gpt-5", "", "", 1, "low", 0},
		{"gpt-5", "", "", 1024, "low", 0},
		{"gpt-5", "", "", 1025, "medium", 0},
		{"gpt-5", "enabled", "", 8192, "medium", 0},
		{"gpt-5", "", "", 8193, "high", 0},
		{"gpt-5", "", "", 64000, "high", 0},
		// A named level beats a budget, which is then not used, with a warning.
		{"gpt-5", "low", "", 20000, "low", 1},
		{"gpt-5", "off", "", 20000, "none", 1},
		{"gpt-5", "", "medium", 500, "medium", 1},
		{"gpt-4o", "", "", 500, "", 1}, // mapped, then not sent to a model that refuses it
	}
	for _, c := range cases {
		got, warns := ReasoningEffort(c.model, c.thinking, c.effort, c.budget)
		if got != c.want || len(warns) != c.warns {
			t.Errorf("ReasoningEffort(%q, %q, %q, %d) = %q, %q", c.model, c.thinking, c.effort, c.budget, got, warns)
		}
	}
}
