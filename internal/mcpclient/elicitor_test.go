package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// person is an Elicitor that records what it was asked and gives answer
// (or err); block makes it wait for its ctx instead.
type person struct {
	answer ElicitAnswer
	err    error
	block  bool
	seen   chan struct{} // gets one value per question, when set
	mu     sync.Mutex
	asked  []Elicitation
}

func (p *person) Elicit(ctx context.Context, e Elicitation) (ElicitAnswer, error) {
	p.mu.Lock()
	p.asked = append(p.asked, e)
	p.mu.Unlock()
	if p.seen != nil {
		p.seen <- struct{}{}
	}
	if p.block {
		<-ctx.Done()
		return ElicitAnswer{}, ctx.Err()
	}
	return p.answer, p.err
}

func (p *person) questions() []Elicitation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Elicitation(nil), p.asked...)
}

// With an Elicitor, a server's form elicitation that no configured value
// answers goes to the person, in both eras (a 2026 input_required round,
// a 2025 elicitation/create request mid-call), and the server gets the
// person's answer: accept with its content, decline, cancel; an error
// (nobody answered) is a decline. Each is a notice.
func TestElicitorAnswers(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct{ era, tool, prefix string }{
		{"modern", "ask", "answered "},
		{"legacy", "legacy_ask", "client said "},
	} {
		for _, tc := range []struct {
			name  string
			p     *person
			reply string
			kind  string
		}{
			{"accept", &person{answer: ElicitAnswer{Action: "accept", Content: map[string]any{"name": "mona"}}},
				`{"action":"accept","content":{"name":"mona"}}`, NoticeInputAnswered},
			{"decline", &person{answer: ElicitAnswer{Action: "decline"}}, `{"action":"decline"}`, NoticeInputDeclined},
			{"cancel", &person{answer: ElicitAnswer{Action: "cancel"}}, `{"action":"cancel"}`, NoticeInputDeclined},
			{"odd action", &person{answer: ElicitAnswer{Action: "maybe"}}, `{"action":"decline"}`, NoticeInputDeclined},
			{"nobody answered", &person{err: errors.New("client gone")}, `{"action":"decline"}`, NoticeInputDeclined},
		} {
			t.Run(mode.era+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				var ns notices
				c, err := eraClient(t, mode.era, ServerConfig{}, Options{OnNotice: ns.add, Elicit: tc.p})
				if err != nil {
					t.Fatal(err)
				}
				r, err := eraCall(t, c, mode.tool)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(r.Text, mode.prefix+tc.reply) {
					t.Errorf("result %q, want %q", r.Text, mode.prefix+tc.reply)
				}
				q := tc.p.questions()
				if len(q) != 1 || q[0].Server != "era" || q[0].Tool != mode.tool || q[0].Message != "Your GitHub login?" ||
					!strings.Contains(string(q[0].Schema), `"required":["name"]`) {
					t.Errorf("asked %+v", q)
				}
				ns.mu.Lock()
				defer ns.mu.Unlock()
				if len(ns.got) != 1 || ns.got[0].Kind != tc.kind || ns.got[0].Tool != mode.tool {
					t.Errorf("notices %+v, want one %s", ns.got, tc.kind)
				}
			})
		}
	}
}

// Configured values that answer the request come first: the person is not
// asked. Values that leave a required field empty do not answer it, so
// the person is.
func TestElicitorAfterConfiguredValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		values map[string]json.RawMessage
		asked  int
		reply  string
	}{
		{"values answer", map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`)}, 0, `{"action":"accept","content":{"name":"octocat"}}`},
		{"values miss a required field", map[string]json.RawMessage{"age": json.RawMessage(`3`)}, 1, `{"action":"accept","content":{"name":"mona"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := &person{answer: ElicitAnswer{Action: "accept", Content: map[string]any{"name": "mona"}}}
			c, err := eraClient(t, "modern", ServerConfig{Elicitation: tc.values}, Options{Elicit: p})
			if err != nil {
				t.Fatal(err)
			}
			r, err := eraCall(t, c, "ask")
			if err != nil {
				t.Fatal(err)
			}
			if len(p.questions()) != tc.asked || !strings.Contains(r.Text, tc.reply) {
				t.Errorf("asked %d times, result %q; want %d, %q", len(p.questions()), r.Text, tc.asked, tc.reply)
			}
		})
	}
}

// With an Elicitor odek declares elicitation (form) to every server, as it
// does when values are configured.
func TestElicitorDeclaresCapability(t *testing.T) {
	t.Parallel()
	c, err := eraClient(t, "modern", ServerConfig{}, Options{Elicit: &person{}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := eraCall(t, c, "meta")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}`) {
		t.Errorf("with an Elicitor odek must declare elicitation: %s", m.Text)
	}
}

// A person who takes their time does not stop the connection: the 2025
// request waits on its own goroutine while other calls to the server get
// their answers, and closing the client ends the wait.
func TestElicitorWaitDoesNotBlockTheReader(t *testing.T) {
	t.Parallel()
	p := &person{block: true, seen: make(chan struct{}, 1)}
	c, err := eraClient(t, "legacy", ServerConfig{}, Options{Elicit: p})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.callToolResult(ctx, "legacy_ask", json.RawMessage(`{}`))
		done <- err
	}()
	select {
	case <-p.seen:
	case err := <-done:
		t.Fatalf("the call ended before the person was asked: %v", err)
	}
	if _, err := eraCall(t, c, "init"); err != nil {
		t.Fatalf("another call while the person is asked: %v", err)
	}
	cancel()
	<-done
	if err := c.Close(); err != nil {
		t.Logf("close: %v", err)
	}
}
