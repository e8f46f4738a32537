package cassette

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/redact"
)

// Values only a key or the registry can tell are secrets: a registered
// literal (an API key, a secrets.env value) and the operator's elicitation
// answers, which reach an MCP stream as {"password": …, "token": …}.
const (
	secretLiteral   = "Lit3ral-Registered-Value"
	elicitPassword  = "correct horse battery staple"
	elicitToken     = "tok-elicit-answer-0001"
	memberSecret    = "plain-member-value-0042"
	memberSecretKey = "db_password"
)

// secretRedaction is what cmd/odek gives a cassette: the registry's
// String and Field, with secretLiteral registered, and the elicitation
// answers, as config.SecretValues has them registered (an MCP server may
// echo one, or the model repeat it, where no key names it).
func secretRedaction(t *testing.T) (func(string) string, func(string, string) string) {
	t.Helper()
	redact.Register(secretLiteral, elicitPassword, elicitToken)
	return redact.String, redact.Field
}

// secretsEverywhere is a JSON value with every secret at every place one
// can sit: in a text, alone as a string, as an object key, under a
// secret-named key at depth, in an array under one, and as members of the
// shapes the streams carry.
func secretsEverywhere() map[string]any {
	var texts []string
	keys := map[string]any{}
	for _, e := range redact.Examples() {
		texts = append(texts, "here: "+e.Text)
		if !strings.ContainsAny(e.Text, " \n\"") {
			keys[e.Text] = "value"
		}
	}
	texts = append(texts, secretLiteral, "the literal "+secretLiteral+" again")
	return map[string]any{
		"text":  strings.Join(texts, "\n"),
		"items": texts,
		"keys":  keys,
		"deep": map[string]any{"a": []any{map[string]any{"b": map[string]any{
			"password": elicitPassword, "token": elicitToken, memberSecretKey: memberSecret,
			"tokens": []any{elicitToken, memberSecret},
		}}}},
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Issue 34.11: no stream of a cassette holds a secret the redaction
// registry knows, a registered value, or a value under a secret-named key
// (the operator's elicitation answers): LLM requests and every kind of
// answer (JSON, SSE, text, transport error), MCP messages both ways (a
// result, a tool error, a JSON-RPC error, odek's answer to an elicitation,
// a line that is not JSON), shell calls (arguments, output, error), and a
// sub-agent's streams. The masked cassette still replays: the live side is
// masked alike before comparing.
func TestRecordingHoldsNoSecret(t *testing.T) {
	text, field := secretRedaction(t)
	dir := filepath.Join(t.TempDir(), "cas")
	rec, err := Create(dir, RecordOptions{Redact: text, RedactField: field})
	if err != nil {
		t.Fatal(err)
	}
	all := secretsEverywhere()
	allJSON := mustJSON(t, all)
	reqBody := mustJSON(t, map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "user", "content": all["text"]},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
			"function": map[string]any{"name": "srv__login", "arguments": string(allJSON)}}}},
	}, "metadata": all})

	recordLLMAnswers(t, rec, reqBody, allJSON, all["text"].(string))
	recordMCP(t, rec, allJSON, all["text"].(string))
	if err := rec.RecordTool("shell", mustJSON(t, map[string]any{"command": "echo", "env": all}), all["text"].(string),
		errors.New("shell: timed out; output: "+all["text"].(string))); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	child, err := Attach(dir, "sub-0123456789ab-1", RecordOptions{Redact: text, RedactField: field})
	if err != nil {
		t.Fatal(err)
	}
	recordLLMAnswers(t, child, reqBody, allJSON, all["text"].(string))
	if err := child.RecordTool("shell", allJSON, "", nil); err != nil {
		t.Fatal(err)
	}
	if err := child.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, dir)
	assertReplays(t, dir, reqBody, text, field)
}

// recordLLMAnswers records one request four times, answered with a JSON
// body, an SSE stream (a secret split across chunks, a secret-named member),
// a text body and a transport error, each full of secrets.
func recordLLMAnswers(t *testing.T, rec *Recorder, reqBody, allJSON []byte, allText string) {
	t.Helper()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		switch n {
		case 1:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(allJSON)
		case 2:
			w.Header().Set("Content-Type", "text/event-stream")
			half := len(elicitPassword) / 2
			for _, chunk := range []string{elicitPassword[:half], elicitPassword[half:], allText} {
				ev := mustJSON(t, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": chunk}}}})
				_, _ = io.WriteString(w, "data: "+string(ev)+"\n\n")
			}
			_, _ = io.WriteString(w, "data: "+string(allJSON)+"\n\nevent: odd\ndata: "+allText+"\n\ndata: [DONE]\n\n")
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(502)
			_, _ = io.WriteString(w, "upstream said: "+allText+"\n"+string(allJSON))
		}
	}))
	defer srv.Close()
	c := &http.Client{Transport: rec.LLMTransport(http.DefaultTransport)}
	for range 3 {
		resp, err := c.Post(srv.URL, "application/json", bytes.NewReader(reqBody))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	failing := &http.Client{Transport: rec.LLMTransport(failingTransport{err: errors.New("dial: " + allText)})}
	if _, err := failing.Post("http://x.invalid", "application/json", bytes.NewReader(reqBody)); err == nil {
		t.Fatal("the failing transport answered")
	}
}

// recordMCP records a session with a server that asks for the operator's
// answers and hands back secrets every way it can.
func recordMCP(t *testing.T, rec *Recorder, allJSON []byte, allText string) {
	t.Helper()
	tap, err := rec.MCPTap("vault")
	if err != nil {
		t.Fatal(err)
	}
	msg := func(v map[string]any) []byte { v["jsonrpc"] = "2.0"; return mustJSON(t, v) }
	var all any
	_ = json.Unmarshal(allJSON, &all)
	tap.Sent(msg(map[string]any{"id": 1, "method": "tools/call", "params": map[string]any{"name": "login", "arguments": all,
		"_meta": map[string]any{"progressToken": "odek-1"}}}))
	tap.Received(msg(map[string]any{"id": "e-1", "method": "elicitation/create", "params": map[string]any{"message": "credentials?",
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"password": map[string]any{"type": "string"},
			"token": map[string]any{"type": "string"}}, "required": []string{"password", "token"}}}}))
	tap.Sent(msg(map[string]any{"id": "e-1", "result": map[string]any{"action": "accept",
		"content": map[string]any{"password": elicitPassword, "token": elicitToken}}}))
	tap.Received(msg(map[string]any{"method": "notifications/progress", "params": map[string]any{"progressToken": "odek-1", "progress": 1}}))
	tap.Received(msg(map[string]any{"id": 1, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": allText}},
		"structuredContent": all}}))
	tap.Sent(msg(map[string]any{"id": 2, "method": "tools/call", "params": map[string]any{"name": "fail"}}))
	tap.Received(msg(map[string]any{"id": 2, "result": map[string]any{"isError": true,
		"content": []any{map[string]any{"type": "text", "text": "denied for " + allText}}}}))
	tap.Sent(msg(map[string]any{"id": 3, "method": "tools/call", "params": map[string]any{"name": "boom"}}))
	tap.Received(msg(map[string]any{"id": 3, "error": map[string]any{"code": -32000, "message": "boom: " + allText, "data": all}}))
}

// assertNoSecret reads every file of the cassette and fails on any secret.
func assertNoSecret(t *testing.T, dir string) {
	t.Helper()
	secrets := []string{secretLiteral, elicitPassword, elicitToken, memberSecret}
	for _, e := range redact.Examples() {
		secrets = append(secrets, e.Secret)
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	streams := 0
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.Name(), ".jsonl") {
			streams++
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %q", f.Name(), s)
			}
		}
	}
	if streams != 5 { // llm, mcp-vault, tool-shell, and the sub-agent's llm and shell
		t.Errorf("%d streams, want 5: %v", streams, files)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "mcp-vault.jsonl"))
	if !bytes.Contains(b, []byte(`"progressToken":"odek-1"`)) {
		t.Error("the progress token, odek's own, was masked: a replay could not pair progress with its call")
	}
}

// assertReplays plays the masked cassette to a live run that sends the
// secrets in clear: every request matches.
func assertReplays(t *testing.T, dir string, reqBody []byte, text func(string) string, field func(string, string) string) {
	t.Helper()
	p, err := Open(dir, PlayOptions{Redact: text, RedactField: field})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := p.LLMTransport()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		resp, err := (&http.Client{Transport: rt}).Post("http://replay.invalid", "application/json", bytes.NewReader(reqBody))
		if i == 3 {
			if err == nil {
				t.Fatal("the recorded transport error was not replayed")
			}
			continue
		}
		if err != nil || resp.StatusCode == http.StatusBadRequest {
			t.Fatalf("request %d: %v %v", i+1, err, p.Err())
		}
		resp.Body.Close()
	}
	peer, err := p.MCPPeer("vault")
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	var all any
	_ = json.Unmarshal(mustJSON(t, secretsEverywhere()), &all)
	sends := []map[string]any{
		{"id": 7, "method": "tools/call", "params": map[string]any{"name": "login", "arguments": all, "_meta": map[string]any{"progressToken": "odek-9"}}},
		{"id": "e-1", "result": map[string]any{"action": "accept", "content": map[string]any{"password": elicitPassword, "token": elicitToken}}},
	}
	for i, m := range sends {
		m["jsonrpc"] = "2.0"
		if err := peer.Send(context.Background(), mustJSON(t, m)); err != nil {
			t.Fatalf("MCP send %d departs: %v", i+1, err)
		}
	}
}
