package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/llm"
)

// rawPeer is the agent over pipes with a client that writes raw lines:
// what a broken or hostile client sends.
type rawPeer struct {
	w      *os.File
	lines  chan map[string]any
	served chan error
}

func serveRaw(t *testing.T, runner Runner) *rawPeer {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &rawPeer{w: inW, lines: make(chan map[string]any, 64), served: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), Options{Runner: runner}, inR, outW)
		inR.Close()
		outW.Close()
		p.served <- err
	}()
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.lines <- m
			}
		}
		outR.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-p.served:
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return after the client left")
		}
		for range p.lines {
		}
	})
	return p
}

func (p *rawPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// reply waits for the response to id, skipping notifications.
func (p *rawPeer) reply(t *testing.T, id int) map[string]any {
	t.Helper()
	for m := range p.lines {
		if v, ok := m["id"].(float64); ok && int(v) == id {
			return m
		}
	}
	t.Fatalf("no response to %d", id)
	return nil
}

func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

// Bad input gets the protocol's error, and the connection goes on: a
// line that is not JSON is skipped, the next request is answered.
func TestBadInput(t *testing.T) {
	t.Parallel()
	r := &fakeRunner{turn: func(context.Context, *fakeSession, string, Observer) (*TurnResult, error) {
		return &TurnResult{Termination: "completed"}, nil
	}}
	p := serveRaw(t, r)
	init := `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":1}}`
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	if c := errCode(p.reply(t, 1)); c != -32600 {
		t.Errorf("session/new before initialize: code %d, want -32600", c)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":`) // cut short
	p.send(t, fmt.Sprintf(init, 3))
	if m := p.reply(t, 3); m["result"] == nil {
		t.Fatalf("initialize after a malformed line: %v", m)
	}
	for i, tc := range []struct {
		name, req string
		code      int
	}{
		{"unknown method", `{"jsonrpc":"2.0","id":%d,"method":"session/fly","params":{}}`, -32601},
		{"extension method", `{"jsonrpc":"2.0","id":%d,"method":"_odek/x","params":{}}`, -32601},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":7}}`, -32602},
		{"missing field", `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/w"}}`, -32602},
		{"relative cwd", `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"w","mcpServers":[]}}`, -32602},
		{"unknown session", `{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, -32002},
		{"unknown session to load", `{"jsonrpc":"2.0","id":%d,"method":"session/load","params":{"sessionId":"20261206-00000000000000000000000000000000","cwd":"/w","mcpServers":[]}}`, -32002},
		{"sse server", `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"type":"sse","name":"s","url":"http://x","headers":[]}]}}`, -32602},
		{"authenticate", `{"jsonrpc":"2.0","id":%d,"method":"authenticate","params":{"methodId":"x"}}`, -32602},
	} {
		id := 100 + i
		p.send(t, fmt.Sprintf(tc.req, id))
		if c := errCode(p.reply(t, id)); c != tc.code {
			t.Errorf("%s: code %d, want %d", tc.name, c, tc.code)
		}
	}
	p.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}`) // a notification: no answer
	p.send(t, `{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	m := p.reply(t, 4)
	res, _ := m["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", m)
	}
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}`, sid))
	if c := errCode(p.reply(t, 5)); c != -32602 {
		t.Errorf("image prompt: code %d, want -32602", c)
	}
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}}`, sid))
	if res, _ := p.reply(t, 6)["result"].(map[string]any); res["stopReason"] != "end_turn" {
		t.Errorf("prompt after the errors: %v, want end_turn", res)
	}
}

// A prompt's response comes after every update of its turn on the wire.
func TestResponseAfterUpdates(t *testing.T) {
	t.Parallel()
	const n = 300
	r := &fakeRunner{turn: func(_ context.Context, _ *fakeSession, _ string, obs Observer) (*TurnResult, error) {
		for i := 0; i < n; i++ {
			obs.Reply(i, llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("chunk %d", i)})
		}
		return &TurnResult{Termination: "completed", Answer: fmt.Sprintf("chunk %d", n-1)}, nil
	}}
	p := serveRaw(t, r)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	p.reply(t, 1)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	res, _ := p.reply(t, 2)["result"].(map[string]any)
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}}`, res["sessionId"]))
	updates := 0
	for m := range p.lines {
		if m["method"] == "session/update" {
			updates++
			continue
		}
		if id, _ := m["id"].(float64); id == 3 {
			break
		}
	}
	if updates != n {
		t.Errorf("%d updates before the response, want %d", updates, n)
	}
}
