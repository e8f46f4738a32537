package cassette

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// MCPTap records one server's messages; mcpclient calls it for every
// message it sends and receives.
type MCPTap struct {
	r    *Recorder
	file string
}

// MCPTap returns the tap for server's stream.
func (r *Recorder) MCPTap(server string) (*MCPTap, error) {
	if err := checkServer(server); err != nil {
		return nil, err
	}
	return &MCPTap{r: r, file: mcpFile(r.prefix, server)}, nil
}

// Sent records a message odek sent.
func (t *MCPTap) Sent(msg []byte) { t.add(DirSend, msg) }

// Received records a message the server sent.
func (t *MCPTap) Received(msg []byte) { t.add(DirRecv, msg) }

func (t *MCPTap) add(dir string, msg []byte) {
	m := t.r.redactJSON(msg)
	t.r.write(t.file, func(seq int) any { return MCPEntry{Seq: seq, Dir: dir, Msg: m} })
}

// Peer stands in for one server: each message odek sends is matched to
// the cassette's next one (or, for concurrent calls sent in another order,
// a later unplayed one of the same form), and the server's recorded
// messages after it are delivered with their ids renumbered to odek's.
type Peer struct {
	p       *Player
	name    string
	entries []MCPEntry
	played  []bool

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []MCPEntry                 // recorded server messages, in order
	ids     map[string]json.RawMessage // recorded request id → this run's
	sends   int
	closed  bool
	failure error
}

// MCPPeer returns the stand-in for server, or an error when the cassette
// holds no stream for it.
func (p *Player) MCPPeer(server string) (*Peer, error) {
	if err := checkServer(server); err != nil {
		return nil, err
	}
	file := mcpFile(p.prefix, server)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.mcp[file]; ok {
		return nil, fmt.Errorf("cassette: server %q is already being replayed", server)
	}
	entries, err := readStream(p.dir, file, ReadMCP)
	if err != nil {
		return nil, err
	}
	if entries == nil {
		return nil, fmt.Errorf("cassette: no recording of MCP server %q (%s)", server, file)
	}
	m := &Peer{p: p, name: strings.TrimSuffix(file, ".jsonl"), entries: entries, played: make([]bool, len(entries)), ids: map[string]json.RawMessage{}}
	m.cond = sync.NewCond(&m.mu)
	m.queueFrom(0) // what the server said before odek's first message
	p.mcp[file] = m
	return m, nil
}

// queueFrom queues the unplayed server messages from i to the next send.
func (m *Peer) queueFrom(i int) {
	for ; i < len(m.entries) && m.entries[i].Dir == DirRecv; i++ {
		if !m.played[i] {
			m.played[i] = true
			m.queue = append(m.queue, m.entries[i])
		}
	}
	m.cond.Broadcast()
}

type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// Send matches one message odek sends.
func (m *Peer) Send(_ context.Context, msg []byte) error {
	var head rpcHead
	if err := json.Unmarshal(msg, &head); err != nil {
		return fmt.Errorf("replay %s: odek sent a message that is not JSON: %w", m.name, err)
	}
	live, err := m.p.live.mcpMessage(msg)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return io.ErrClosedPipe
	}
	if m.failure != nil {
		return m.failure
	}
	m.sends++
	// Concurrent requests may go out in another order than recorded: any
	// unplayed send may match. first is the next unplayed one, which a
	// departure is compared with.
	first := -1
	for i, e := range m.entries {
		if m.played[i] || e.Dir != DirSend {
			continue
		}
		if first < 0 {
			first = i
		}
		want, err := m.p.rec.mcpMessage(e.Msg)
		if err != nil {
			continue
		}
		if _, differ := firstDiff("", want, live); !differ {
			m.played[i] = true
			var rec rpcHead
			_ = json.Unmarshal(e.Msg, &rec)
			if head.Method != "" && len(head.ID) > 0 && len(rec.ID) > 0 {
				m.ids[string(rec.ID)] = head.ID
			}
			m.queueFrom(i + 1)
			return nil
		}
	}
	if len(head.ID) == 0 && head.Method != "" {
		// A notification the cassette lacks (a cancellation after a
		// timeout, say) changes nothing the server answers: not a departure.
		return nil
	}
	d := m.departure(first, live, head.Method)
	m.failure = m.p.depart(d)
	m.cond.Broadcast()
	return m.failure
}

func (m *Peer) departure(first int, live any, method string) *DepartureError {
	what := fmt.Sprintf("message %d (%s)", m.sends, orAnswer(method))
	if first < 0 {
		return &DepartureError{Stream: m.name, What: what, Reason: "the cassette holds no further message from odek; this run sent " + show(live)}
	}
	want, err := m.p.rec.mcpMessage(m.entries[first].Msg)
	if err != nil {
		return &DepartureError{Stream: m.name, What: what, Reason: err.Error()}
	}
	d, _ := firstDiff("", want, live)
	return &DepartureError{Stream: m.name, What: what, Path: d.path, At: d.at, Want: d.want, Got: d.got}
}

func orAnswer(method string) string {
	if method == "" {
		return "an answer to the server"
	}
	return method
}

// Recv returns the next recorded server message whose request odek has
// sent, with the id odek used; io.EOF once closed.
func (m *Peer) Recv() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		if m.failure != nil {
			return nil, m.failure
		}
		for i, e := range m.queue {
			if out, ok := m.deliverable(e.Msg); ok {
				m.queue = append(m.queue[:i], m.queue[i+1:]...)
				return out, nil
			}
		}
		if m.closed {
			return nil, io.EOF
		}
		m.cond.Wait()
	}
}

// deliverable: a server request or notification goes as it is; a response
// goes once the request it answers was sent, under that request's id.
func (m *Peer) deliverable(msg json.RawMessage) ([]byte, bool) {
	var head rpcHead
	if json.Unmarshal(msg, &head) != nil || head.Method != "" || len(head.ID) == 0 {
		return append([]byte(nil), msg...), true
	}
	live, ok := m.ids[string(head.ID)]
	if !ok {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(msg, &obj) != nil {
		return append([]byte(nil), msg...), true
	}
	obj["id"] = live
	out, err := json.Marshal(obj)
	if err != nil {
		return append([]byte(nil), msg...), true
	}
	return out, true
}

// Close ends the stand-in; a blocked Recv returns io.EOF.
func (m *Peer) Close() error {
	m.mu.Lock()
	m.closed = true
	m.cond.Broadcast()
	m.mu.Unlock()
	return nil
}
