package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// endingPeer stands in for a cassette's server: it answers discovery and
// tools/list, and ends (Recv fails) at the first tools/call, as a replay
// does when the run departs from the cassette.
type endingPeer struct {
	out  chan []byte
	dead chan struct{}
	once sync.Once
}

func newEndingPeer() *endingPeer {
	return &endingPeer{out: make(chan []byte, 8), dead: make(chan struct{})}
}

func (p *endingPeer) Send(_ context.Context, msg []byte) error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(msg, &m)
	reply := func(result any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		p.out <- b
	}
	switch m.Method {
	case "server/discover":
		reply(map[string]any{"resultType": "complete", "supportedVersions": []string{ModernProtocolVersion},
			"capabilities": map[string]any{"tools": map[string]any{}}})
	case "tools/list":
		reply(map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}})
	case "tools/call":
		_ = p.Close()
	}
	return nil
}

func (p *endingPeer) Recv() ([]byte, error) {
	select {
	case b := <-p.out:
		return b, nil
	case <-p.dead:
		return nil, io.ErrUnexpectedEOF
	}
}

func (p *endingPeer) Close() error {
	p.once.Do(func() { close(p.dead) })
	return nil
}

// A replayed server that ends is never restarted: the run has no server
// process to start (strict mode serves every server from the cassette),
// and starting the configured command — here a real server that would
// answer — would run it for real in a replay. The next call fails with
// the ending's cause, and no restart is reported.
func TestReplayedServerIsNotRestarted(t *testing.T) {
	t.Parallel()
	ns := &notices{}
	cfg := ServerConfig{Command: fixtureBin, Args: []string{"-root", t.TempDir()}}
	o := Options{Environ: testEnviron, OnNotice: ns.add, Replay: func(string) (Peer, error) { return newEndingPeer(), nil }}
	c, tools, err := connectDiscovered(t, "fx", cfg, o)
	if err != nil || len(tools) != 1 {
		t.Fatalf("discover: %v, %d tools", err, len(tools))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.callToolResult(ctx, "echo", json.RawMessage(`{"text":"a"}`)); err == nil {
		t.Fatal("the call the replay ended on succeeded")
	}
	_, err = c.callToolResult(ctx, "echo", json.RawMessage(`{"text":"b"}`))
	if err == nil || strings.Contains(err.Error(), "restart") {
		t.Errorf("the call after the replay ended: %v, want the ending's error", err)
	}
	if got := ns.kinds(); got != "" {
		t.Errorf("notices %s: a replayed server is neither restarted nor reported lost", got)
	}
}

// A server odek cut off for an answer over max_response_bytes stays down:
// odek ended it to fail closed, and starting it again would let it send
// the same answer. Every later call says so, with no restart.
func TestOversizeAnswerIsNotRestarted(t *testing.T) {
	t.Parallel()
	f, ns := restartFixture(t, ServerConfig{MaxResponseBytes: 64 << 10}, Options{})
	if _, err := f.call(t, "huge_line", `{"n":200000}`); !errors.As(err, new(*ResponseTooLargeError)) {
		t.Fatalf("oversize answer: %v, want ResponseTooLargeError", err)
	}
	r, err := f.call(t, "echo", `{"text":"again"}`)
	if err == nil {
		t.Fatalf("the server answered again: %q", r.Text)
	}
	if got := ns.kinds(); got != "" {
		t.Errorf("notices %s: the server was restarted", got)
	}
}
