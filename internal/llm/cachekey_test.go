package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

// chatBody is what the cache needs of a chat request: the key, and the
// prefix every request of a run shares (the system prompt, the task and
// the tools).
type chatBody struct {
	User     *string           `json:"user"`
	Messages []json.RawMessage `json:"messages"`
	Tools    json.RawMessage   `json:"tools"`
}

func chatBodies(t *testing.T, srv *fakellm.Server) []chatBody {
	t.Helper()
	var out []chatBody
	for _, r := range srv.Requests() {
		var b chatBody
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestChatPromptCacheKey: on the chat wire the cache key travels as user,
// the same in every request of the run, whose prefix stays the same bytes;
// without a key no user is sent.
func TestChatPromptCacheKey(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"run-1", ""} {
		srv := startFake(t, fakellm.Turn{ToolCalls: []fakellm.ScriptCall{{Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}}},
			fakellm.Turn{Content: "done"})
		c := newClient(srv, &recorder{}, func(o *llm.Options) { o.PromptCacheKey = key })
		req := llm.Request{Model: "m", Tools: []llm.ToolSpec{{Name: "read_file"}},
			Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are odek."}, {Role: llm.RoleUser, Content: "Read a."}}}
		for range 2 {
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			req.Messages = append(req.Messages, resp.Message)
			for _, call := range resp.Message.ToolCalls {
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Content: "text"})
			}
		}
		bodies := chatBodies(t, srv)
		if len(bodies) != 2 {
			t.Fatalf("%d requests", len(bodies))
		}
		for i, b := range bodies {
			switch {
			case key == "" && b.User != nil:
				t.Errorf("request %d sent user %q without a cache key", i+1, *b.User)
			case key != "" && (b.User == nil || *b.User != key):
				t.Errorf("request %d: user = %v, want %q", i+1, b.User, key)
			}
		}
		first, second := bodies[0], bodies[1]
		if !bytes.Equal(first.Tools, second.Tools) || len(second.Messages) < len(first.Messages) {
			t.Fatalf("the second request does not extend the first")
		}
		for i := range first.Messages {
			if !bytes.Equal(first.Messages[i], second.Messages[i]) {
				t.Fatalf("message %d changed between requests:\n%s\n%s", i, first.Messages[i], second.Messages[i])
			}
		}
	}
}

// TestChatUserRefused: an endpoint that refuses user gets the request
// again without it, and no user for the rest of the run, with one report.
func TestChatUserRefused(t *testing.T) {
	t.Parallel()
	srv, err := fakellm.Start(&fakellm.Script{RejectParams: []string{"user"},
		Turns: []fakellm.Turn{{Content: "one"}, {Content: "two"}}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var fb fallbacks
	c := newClient(srv, &recorder{}, func(o *llm.Options) { o.PromptCacheKey = "run-1"; o.OnFallback = fb.add })
	for _, want := range []string{"one", "two"} {
		resp, err := c.Complete(context.Background(), simpleRequest())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Message.Content != want {
			t.Fatalf("answer %q, want %q", resp.Message.Content, want)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !has(reqs[0], "user") || has(reqs[1], "user") || has(reqs[2], "user") {
		t.Fatalf("%d requests; user sent: %v", len(reqs), []bool{has(reqs[0], "user"), len(reqs) > 1 && has(reqs[1], "user")})
	}
	if len(fb.got) != 1 || fb.got[0].Field != llm.FieldUser {
		t.Fatalf("fallbacks: %+v", fb.got)
	}
	if w := fb.got[0].Warning(); w != `the endpoint refused the prompt cache key sent as user for model "test-model" (HTTP 400: Unsupported parameter: 'user' is not supported with this model.); continuing without it for the rest of the run (prompt_caching false skips it)` {
		t.Errorf("warning: %q", w)
	}
}
