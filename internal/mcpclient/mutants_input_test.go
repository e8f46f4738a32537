package mcpclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// askServer is a modern server, in memory, with one tool "q": a call
// without inputResponses is answered input_required with the test's
// inputRequests (raw JSON) and requestState "st"; the retry is answered
// with the inputResponses it carried, as text, so a test reads exactly
// what odek answered.
func askServer(requests string) func(*memServer) {
	return func(end *memServer) {
		serveRequests(end, func(b []byte, send func(map[string]any)) {
			var m eraMsg
			if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
				return
			}
			if answerDiscovery(m.ID, m.Method, send, map[string]any{"name": "q", "inputSchema": map[string]any{"type": "object"}}) {
				return
			}
			switch m.Method {
			case "tools/call":
				var p struct {
					InputResponses json.RawMessage `json:"inputResponses"`
					RequestState   string          `json:"requestState"`
				}
				_ = json.Unmarshal(m.Params, &p)
				if p.RequestState == "st" {
					send(map[string]any{"id": m.ID, "result": map[string]any{"content": eraText("responses " + string(p.InputResponses))}})
					return
				}
				send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "input_required",
					"requestState": "st", "inputRequests": json.RawMessage(requests)}})
			default:
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			}
		})
	}
}

// askCall calls q on an askServer sending requests and returns what the
// retry carried (the result's text) or the call's error, with the notices.
func askCall(t *testing.T, requests string, cfg ServerConfig, o Options) (string, []Notice, error) {
	t.Helper()
	var ns notices
	o.OnNotice = ns.add
	c, _, err := connectInMemory(t, "q", cfg, o, askServer(requests))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := c.callToolResult(ctx, "q", json.RawMessage(`{}`))
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if err != nil {
		return "", ns.got, err
	}
	lines := strings.Split(r.Text, "\n")
	if len(lines) != 3 {
		t.Fatalf("result %q", r.Text)
	}
	return strings.TrimPrefix(lines[1], "responses "), ns.got, nil
}

const nameSchema = `{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"org":{"type":"string"}}}`

func elicitReq(params string) string {
	return `{"method":"elicitation/create","params":` + params + `}`
}

// What each request for input gets, by the policy of input.go: configured
// values that fill every required field answer it (only the fields the
// schema names); values that miss one, or none, decline the whole call
// with the reason; a request that is not an elicitation, is malformed, or
// is not a form (url mode) is declined, saying why.
func TestInputPolicy(t *testing.T) {
	t.Parallel()
	values := map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`), "team": json.RawMessage(`"x"`)}
	for _, tc := range []struct {
		name     string
		requests string
		values   map[string]json.RawMessage
		sent     string // the inputResponses of the retry; "" when the call fails
		err      string // the call's error; "" when it succeeds
		notice   string // the last notice's Reason must contain it
	}{
		{"values answer", `{"a":` + elicitReq(`{"message":"m","requestedSchema":`+nameSchema+`}`) + `}`, values,
			`{"a":{"action":"accept","content":{"name":"octocat"}}}`, "", "answered fields name"},
		{"two requests, both answered", `{"b":` + elicitReq(`{"message":"m","requestedSchema":`+nameSchema+`}`) + `,"a":` +
			elicitReq(`{"mode":"form","message":"m","requestedSchema":{"properties":{"team":{}}}}`) + `}`, values,
			`{"a":{"action":"accept","content":{"team":"x"}},"b":{"action":"accept","content":{"name":"octocat"}}}`, "", "answered fields name"},
		{"no schema: nothing to fill", `{"a":` + elicitReq(`{"message":"m"}`) + `}`, values,
			`{"a":{"action":"accept","content":{}}}`, "", "answered fields "},
		{"a required field without a value", `{"a":` + elicitReq(`{"message":"m","requestedSchema":{"required":["org"],"properties":{"org":{}}}}`) + `}`, values,
			"", `required field "org" has no value in mcp_servers.q.elicitation`, `required field "org"`},
		{"no values", `{"a":` + elicitReq(`{"message":"Your login?","requestedSchema":`+nameSchema+`}`) + `}`, nil,
			"", `no values configured (set mcp_servers.q.elicitation to answer "Your login?")`, "no values configured"},
		{"not an elicitation", `{"a":{"method":"roots/list","params":{}}}`, values,
			"", "odek answers only elicitation requests", "only elicitation"},
		{"a malformed schema", `{"a":` + elicitReq(`{"message":"m","requestedSchema":"name"}`) + `}`, values,
			"", "malformed elicitation request", "malformed"},
		{"malformed params", `{"a":` + elicitReq(`["m"]`) + `}`, values,
			"", "malformed elicitation request", "malformed"},
		{"url mode", `{"a":` + elicitReq(`{"mode":"url","message":"m","url":"https://x.example/"}`) + `}`, values,
			"", `elicitation mode "url" needs a person; odek runs without one`, "needs a person"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sent, ns, err := askCall(t, tc.requests, ServerConfig{Elicitation: tc.values}, Options{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, sent %s; want the call declined: %s", err, sent, tc.err)
				}
			} else if err != nil || sent != tc.sent {
				t.Errorf("sent %s, err %v; want %s", sent, err, tc.sent)
			}
			if len(ns) == 0 || !strings.Contains(ns[len(ns)-1].Reason, tc.notice) {
				t.Errorf("notices %+v, want the last to say %q", ns, tc.notice)
			}
		})
	}
}

// With a person to ask (an Elicitor): a request without a schema reaches
// them as {}, and a url-mode request is not forwarded to them but
// declined, saying so.
func TestInputPolicyWithAPerson(t *testing.T) {
	t.Parallel()
	p := &person{answer: ElicitAnswer{Action: "accept"}}
	sent, ns, err := askCall(t, `{"a":`+elicitReq(`{"message":"m"}`)+`}`, ServerConfig{}, Options{Elicit: p})
	if err != nil || sent != `{"a":{"action":"accept","content":{}}}` {
		t.Errorf("sent %s, err %v; want an accept of no fields", sent, err)
	}
	if q := p.questions(); len(q) != 1 || string(q[0].Schema) != `{}` || q[0].Message != "m" {
		t.Errorf("the person was asked %+v, want one question with the schema {}", q)
	}
	if len(ns) != 1 || ns[0].Kind != NoticeInputAnswered {
		t.Errorf("notices %+v, want one %s", ns, NoticeInputAnswered)
	}

	p = &person{answer: ElicitAnswer{Action: "accept"}}
	_, _, err = askCall(t, `{"a":`+elicitReq(`{"mode":"url","message":"m","url":"https://x.example/"}`)+`}`, ServerConfig{}, Options{Elicit: p})
	if err == nil || !strings.Contains(err.Error(), `elicitation mode "url" is not forwarded; odek forwards form requests only`) || len(p.questions()) != 0 {
		t.Errorf("url mode with a person: %v, asked %d times; want it declined unasked", err, len(p.questions()))
	}
}
