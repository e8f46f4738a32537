package cassette

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// RecordTool writes one built-in tool call and its outcome.
func (r *Recorder) RecordTool(tool string, args json.RawMessage, result string, callErr error) error {
	if err := checkStream(tool); err != nil {
		return err
	}
	a := r.redactJSON(args)
	res := r.text(result)
	var es string
	if callErr != nil {
		es = r.text(callErr.Error())
	}
	r.write(toolFile(r.prefix, tool), func(seq int) any { return ToolEntry{Seq: seq, Tool: tool, Args: a, Result: res, Error: es} })
	return nil
}

type toolPlayer struct {
	name    string
	entries []ToolEntry
	mu      sync.Mutex
	next    int
}

func (t *toolPlayer) unplayed() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries) - t.next
}

// ErrToolDeparted is wrapped by PlayTool's error when the call departs.
var ErrToolDeparted = errors.New("replay departure")

// PlayTool answers a call of tool from the cassette: the next recorded
// call of that tool must have the same arguments.
func (p *Player) PlayTool(tool string, args json.RawMessage) (string, error) {
	if err := checkStream(tool); err != nil {
		return "", err
	}
	t, err := p.toolStream(tool)
	if err != nil {
		// An unreadable stream stops the run at its first call, naming the
		// file and line (the stream is read on the first call only).
		name := strings.TrimSuffix(toolFile(p.prefix, tool), ".jsonl")
		return "", fmt.Errorf("%w: %w", ErrToolDeparted, p.depart(&DepartureError{Stream: name, What: "call 1", Reason: err.Error()}))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if d := p.departed(); d != nil {
		return "", fmt.Errorf("%w: %w", ErrToolDeparted, d)
	}
	n := t.next + 1
	what := fmt.Sprintf("call %d", n)
	if t.next >= len(t.entries) {
		return "", fmt.Errorf("%w: %w", ErrToolDeparted, p.depart(&DepartureError{Stream: t.name, What: what,
			Reason: fmt.Sprintf("the cassette holds %d calls", len(t.entries))}))
	}
	e := t.entries[t.next]
	want, werr := p.rec.value(e.Args)
	got, gerr := p.live.value(args)
	if werr != nil || gerr != nil {
		return "", fmt.Errorf("%w: %w", ErrToolDeparted, p.depart(&DepartureError{Stream: t.name, What: what, Reason: "arguments are not JSON"}))
	}
	if d, differ := firstDiff("args", want, got); differ {
		return "", fmt.Errorf("%w: %w", ErrToolDeparted, p.depart(&DepartureError{Stream: t.name, What: what, Path: d.path, At: d.at, Want: d.want, Got: d.got}))
	}
	t.next++
	if e.Error != "" {
		return e.Result, errors.New(e.Error)
	}
	return e.Result, nil
}

func (p *Player) toolStream(tool string) (*toolPlayer, error) {
	file := toolFile(p.prefix, tool)
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.tools[file]; ok {
		return t, nil
	}
	entries, err := readStream(p.dir, file, ReadTool)
	if err != nil {
		return nil, err
	}
	t := &toolPlayer{name: strings.TrimSuffix(file, ".jsonl"), entries: entries}
	p.tools[file] = t
	return t, nil
}
