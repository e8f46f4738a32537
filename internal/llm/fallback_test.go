package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

// providerRefusals are the providers' own error bodies, each with its source
// (internal/fakellm/testdata/refusals.json).
func providerRefusals(t *testing.T) map[string]fakellm.Refusal {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "fakellm", "testdata", "refusals.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rs map[string]fakellm.Refusal
	if err := json.Unmarshal(b, &rs); err != nil {
		t.Fatal(err)
	}
	return rs
}

// fallbacks collects OnFallback reports.
type fallbacks struct {
	mu  sync.Mutex
	got []llm.Fallback
}

func (f *fallbacks) add(fb llm.Fallback) {
	f.mu.Lock()
	f.got = append(f.got, fb)
	f.mu.Unlock()
}

// TestFallbackProviderRefusals: each provider's refusal of tools or of a
// reasoning_effort is answered by sending the request once more without the
// field, which then stays out for the client's life; one report per field.
func TestFallbackProviderRefusals(t *testing.T) {
	rs := providerRefusals(t)
	names := make([]string, 0, len(rs))
	for n := range rs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		r := rs[name]
		for _, stream := range []bool{true, false} {
			t.Run(name+map[bool]string{true: "/stream", false: "/plain"}[stream], func(t *testing.T) {
				t.Parallel()
				srv, err := fakellm.Start(&fakellm.Script{Refuse: []fakellm.Refusal{r},
					Turns: []fakellm.Turn{{Content: "one"}, {Content: "two"}}}, "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				var fb fallbacks
				rec := &recorder{}
				c := newClient(srv, rec, func(o *llm.Options) { o.Stream = stream; o.OnFallback = fb.add })
				req := simpleRequest()
				req.Model = "gemma3:4b"
				req.Tools = []llm.ToolSpec{{Name: "shell"}}
				req.ReasoningEffort = "low"
				if len(r.Values) > 0 {
					req.ReasoningEffort = r.Values[0]
				}
				for i, want := range []string{"one", "two"} {
					resp, err := c.Complete(context.Background(), req)
					if err != nil {
						t.Fatalf("call %d: %v", i+1, err)
					}
					if resp.Message.Content != want || resp.Attempts != 1 {
						t.Fatalf("call %d: %q after %d attempts", i+1, resp.Message.Content, resp.Attempts)
					}
				}
				reqs := srv.Requests()
				if len(reqs) != 3 {
					t.Fatalf("%d requests, want the refused one and two without %s", len(reqs), r.Param)
				}
				if has(reqs[0], r.Param) != true || has(reqs[1], r.Param) || has(reqs[2], r.Param) {
					t.Fatalf("%s sent: %t %t %t", r.Param, has(reqs[0], r.Param), has(reqs[1], r.Param), has(reqs[2], r.Param))
				}
				if len(fb.got) != 1 || fb.got[0].Field != r.Param || fb.got[0].Model != "gemma3:4b" || fb.got[0].Status != statusOf(r) {
					t.Fatalf("fallbacks: %+v", fb.got)
				}
				// Only a refused reasoning_effort names the value refused.
				if wantValue := ""; r.Param == llm.FieldReasoningEffort && fb.got[0].Value != req.ReasoningEffort ||
					r.Param != llm.FieldReasoningEffort && fb.got[0].Value != wantValue {
					t.Fatalf("fallback of %s names value %q (request's reasoning_effort %q)", r.Param, fb.got[0].Value, req.ReasoningEffort)
				}
				if len(rec.Waits()) != 0 {
					t.Errorf("a refusal is not a retry: waited %v", rec.Waits())
				}
				if w := fb.got[0].Warning(); !strings.Contains(w, "for the rest of the run") {
					t.Errorf("warning: %q", w)
				}
			})
		}
	}
}

func statusOf(r fakellm.Refusal) int {
	if r.Status == 0 {
		return 400
	}
	return r.Status
}

// has reports whether the recorded request carried a field.
func has(r fakellm.RecordedRequest, field string) bool {
	switch field {
	case "tools":
		return r.ToolsField
	case "reasoning_effort":
		return r.ReasoningEffort != ""
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(r.Body, &top)
	_, ok := top[field]
	return ok
}

// TestFallbackOnlyForTheRefusedField: an error that does not refuse a field
// the request carries is handled as before, never by dropping a field.
func TestFallbackOnlyForTheRefusedField(t *testing.T) {
	rs := providerRefusals(t)
	tests := []struct {
		name    string
		refusal fakellm.Refusal
		req     func(*llm.Request)
		reqs    int // requests made
		retried bool
	}{
		{"tools refused, none offered", rs["ollama_tools"], func(r *llm.Request) {}, 1, false},
		{"effort refused, none sent", rs["ollama_think_value"], func(r *llm.Request) { r.Tools = []llm.ToolSpec{{Name: "shell"}} }, 1, false},
		{"a 400 about something else", fakellm.Refusal{Param: "tools", Body: `{"error":{"message":"Invalid schema for function 'shell': 'type' is required"}}`, Source: "test"},
			func(r *llm.Request) { r.Tools = []llm.ToolSpec{{Name: "shell"}}; r.ReasoningEffort = "low" }, 1, false},
		{"a 500 that refuses nothing is retried", fakellm.Refusal{Param: "tools", Status: 500, Body: `{"error":{"message":"tools crashed the template"}}`, Source: "test"},
			func(r *llm.Request) { r.Tools = []llm.ToolSpec{{Name: "shell"}} }, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, err := fakellm.Start(&fakellm.Script{Refuse: []fakellm.Refusal{tt.refusal}, Turns: []fakellm.Turn{{Content: "ok"}}}, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			var fb fallbacks
			rec := &recorder{}
			c := newClient(srv, rec, func(o *llm.Options) { o.OnFallback = fb.add; o.MaxAttempts = 2 })
			req := simpleRequest()
			tt.req(&req)
			_, err = c.Complete(context.Background(), req)
			refused := has(fakellm.RecordedRequest{ToolsField: len(req.Tools) > 0, ReasoningEffort: req.ReasoningEffort}, tt.refusal.Param) &&
				(tt.refusal.Values == nil || contains(tt.refusal.Values, req.ReasoningEffort))
			if refused && err == nil {
				t.Fatal("want the provider's error")
			}
			if got := len(srv.Requests()); got != tt.reqs {
				t.Errorf("%d requests, want %d", got, tt.reqs)
			}
			if len(fb.got) != 0 {
				t.Errorf("fell back: %+v", fb.got)
			}
			var re *llm.RetryError
			if tt.retried != errors.As(err, &re) {
				t.Errorf("retried = %t: %v", errors.As(err, &re), err)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestFallbackResponseFormat: a 400 naming response_format drops it for the
// rest of the run, as OpenAI-compatible servers without structured outputs
// need.
func TestFallbackResponseFormat(t *testing.T) {
	srv, err := fakellm.Start(&fakellm.Script{RejectParams: []string{"response_format"},
		Turns: []fakellm.Turn{{Content: "{}"}, {Content: "{}"}}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var fb fallbacks
	c := newClient(srv, &recorder{}, func(o *llm.Options) { o.OnFallback = fb.add })
	req := simpleRequest()
	req.ResponseFormat = &llm.ResponseFormat{Name: "v", Schema: json.RawMessage(`{"type":"object"}`)}
	for range 2 {
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(srv.Requests()); n != 3 || len(fb.got) != 1 || fb.got[0].Field != llm.FieldResponseFormat {
		t.Fatalf("%d requests, fallbacks %+v", n, fb.got)
	}
}
