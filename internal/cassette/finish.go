package cassette

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// ChildStarted notes that the run started the sub-agent of stream (its
// full name, "sub-3f2a…-1" or "<parent's>.sub-…"): Finish leaves that
// stream to the sub-agent's own Finish.
func (p *Player) ChildStarted(stream string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.children[stream] = true
}

// Finish reports a run that ended before playing its whole cassette: an
// LLM request or a tool call the cassette holds and the run never made,
// in the streams it opened and in those it never did (its own tool
// streams, the llm streams of sub-agents it never started). MCP streams
// are not checked: shutdown traffic differs legitimately.
func (p *Player) Finish() error {
	if err := p.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	var left []string
	for _, l := range p.llm {
		if n := l.unplayed(); n > 0 {
			left = append(left, fmt.Sprintf("%s: %d of %d requests", l.name, n, len(l.entries)))
		}
	}
	for _, t := range p.tools {
		if n := t.unplayed(); n > 0 && !p.lenient {
			left = append(left, fmt.Sprintf("%s: %d of %d calls", t.name, n, len(t.entries)))
		}
	}
	unopened, err := p.unopened()
	p.mu.Unlock()
	if err != nil {
		return p.depart(&DepartureError{Stream: "run", What: "end", Reason: err.Error()})
	}
	left = append(left, unopened...)
	if len(left) == 0 {
		return nil
	}
	sort.Strings(left)
	return p.depart(&DepartureError{Stream: "run", What: "end", Reason: "the run ended before the cassette did; not replayed: " + strings.Join(left, "; ")})
}

// unopened lists the streams of this run the run never asked for that
// hold entries: its tool streams (strict playback only) and the llm
// streams of its direct sub-agents that it never started. p.mu is held.
func (p *Player) unopened() ([]string, error) {
	entries, err := os.ReadDir(p.dir)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	own := ""
	if p.prefix != "" {
		own = p.prefix + "."
	}
	var left []string
	for _, e := range entries {
		file := e.Name()
		stem, ok := strings.CutSuffix(file, ".jsonl")
		if !ok {
			continue
		}
		switch {
		case p.ownTool(stem, own) && !p.lenient && p.tools[file] == nil:
			entries, err := readStream(p.dir, file, ReadTool)
			if err != nil {
				return nil, err
			}
			if n := len(entries); n > 0 {
				left = append(left, fmt.Sprintf("%s: %d of %d calls", stem, n, n))
			}
		case p.childLLM(stem, own):
			entries, err := readStream(p.dir, file, ReadLLM)
			if err != nil {
				return nil, err
			}
			if n := len(entries); n > 0 {
				left = append(left, fmt.Sprintf("%s: %d of %d requests (its sub-agent was never started)", stem, n, n))
			}
		}
	}
	return left, nil
}

// ownTool: stem is "tool-<own><name>" with no further dot.
func (p *Player) ownTool(stem, own string) bool {
	name, ok := strings.CutPrefix(stem, "tool-"+own)
	return ok && name != "" && !strings.Contains(name, ".")
}

// childLLM: stem is "llm-<own><child>", a direct sub-agent's stream
// (no further dot) that the run never started.
func (p *Player) childLLM(stem, own string) bool {
	child, ok := strings.CutPrefix(stem, "llm-"+own)
	return ok && child != "" && !strings.Contains(child, ".") && !p.children[own+child]
}
