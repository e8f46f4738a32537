package loop

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/untrusted"
)

// LoopMarker opens the partial answer of a run the loop breaker stopped.
const LoopMarker = "[Loop detected — partial summary]"

// Defaults of the loop breaker (docs/CONFIG.md, loop_breaker.*). A hint
// after three (the contract's number) costs one system message; the stop
// waits for ten, so that a model polling a slow job, or retrying a flaky
// one, with the hint's advice in hand, is not cut off.
const (
	DefaultLoopHintAfter = 3
	DefaultLoopStopAfter = 10
)

// LoopLimits configure the loop breaker: the same call (tool and arguments)
// giving the same result again with nothing new learned in between, or one
// tool failing call after call, gets a hint (one system message) at
// HintAfter and stops the run (*LoopError) at StopAfter. Successful repeats
// count; an approval, by the policy or a person, resets nothing.
type LoopLimits struct {
	HintAfter int      // 0 = DefaultLoopHintAfter; < 0 = no hints
	StopAfter int      // 0 = DefaultLoopStopAfter; < 0 = never stop
	Exempt    []string // tools never counted (a polling tool)
}

// Kinds of repetition a hint and a LoopError name: a repeat, or the kind
// of error the tool kept failing with.
const (
	loopRepeat       = "repeat"
	loopUnknownTool  = "unknown_tool"
	loopBadArguments = "bad_arguments"
	loopDenied       = "denied"
	loopTimeout      = "timeout"
	loopMCPError     = "mcp_error"
	loopCut          = "cut"
	loopError        = "error"
)

// repeats counts, across the run, what the loop breaker watches.
type repeats struct {
	hintAfter, stopAfter int
	exempt               map[string]bool
	seen                 map[callKey]bool  // every (tool, arguments, result) of the run
	count                map[callKey]int   // repeats of each since something new was seen
	fails                map[string]int    // each tool's failures in a row
	canon                map[string]string // arguments as sent → canonicalArgs, for the repeats
}

// maxCanon bounds the canonical-arguments cache; past it, it starts over.
const maxCanon = 256

// callKey is one call and its result, as the breaker compares them.
type callKey struct {
	tool, args string
	result     digest
}

func newRepeats(l LoopLimits) *repeats {
	p := &repeats{hintAfter: l.HintAfter, stopAfter: l.StopAfter, exempt: map[string]bool{},
		seen: map[callKey]bool{}, count: map[callKey]int{}, fails: map[string]int{}, canon: map[string]string{}}
	if p.hintAfter == 0 {
		p.hintAfter = DefaultLoopHintAfter
	}
	if p.stopAfter == 0 {
		p.stopAfter = DefaultLoopStopAfter
	}
	for _, t := range l.Exempt {
		p.exempt[t] = true
	}
	return p
}

// finding is one repetition the breaker acts on.
type finding struct {
	tool, callID, detail string
	kind                 string
	count                int
}

// observe takes one batch's calls and outcomes, in the model's order, and
// returns the hints due now and the repetition that stops the run, if any.
// A call the run's end cut short (cancelled, a budget stop) says nothing
// about the model and is not counted.
func (p *repeats) observe(calls []llm.ToolCall, out []callOutcome) (hints []finding, stop *finding) {
	for k, c := range calls {
		name, o := c.Function.Name, out[k]
		if p.exempt[name] || o.stopped {
			continue
		}
		key := callKey{tool: name, args: p.canonical(c.Function.Arguments), result: o.digest}
		if !p.seen[key] {
			p.seen[key] = true
			clear(p.count) // something new: what came before is not a loop
		}
		p.count[key]++
		f := finding{tool: name, callID: c.ID, detail: o.desc.value, kind: loopRepeat, count: p.count[key]}
		streak := 0
		if o.err != nil {
			p.fails[name]++
			streak = p.fails[name]
			f.kind = failureKind(o)
		} else {
			p.fails[name] = 0
		}
		hint := f.count == p.hintAfter || streak == p.hintAfter
		f.count = max(f.count, streak)
		if p.stopAfter > 0 && f.count >= p.stopAfter && stop == nil {
			stop = &f
			continue
		}
		if p.hintAfter > 0 && hint {
			hints = append(hints, f)
		}
	}
	return hints, stop
}

// canonical is canonicalArgs, remembered: a model that repeats a call
// sends the same bytes, which then cost a map lookup.
func (p *repeats) canonical(raw string) string {
	if c, ok := p.canon[raw]; ok {
		return c
	}
	if len(p.canon) >= maxCanon {
		clear(p.canon)
	}
	c := canonicalArgs(raw)
	p.canon[raw] = c
	return c
}

// failureKind names what a failed call failed with, for the hint.
func failureKind(o callOutcome) string {
	var unknown *UnknownToolError
	var bad *BadArgumentsError
	var cut *CutToolCallError
	switch {
	case o.denied:
		return loopDenied
	case errors.As(o.err, &unknown):
		return loopUnknownTool
	case errors.As(o.err, &bad):
		return loopBadArguments
	case errors.As(o.err, &cut):
		return loopCut
	}
	switch toolErrorClass(o.err) {
	case "deadline_exceeded":
		return loopTimeout
	case "mcp_error":
		return loopMCPError
	}
	return loopError
}

// hintText is the system message's paragraph for one finding.
func (p *repeats) hintText(f finding) string {
	what := f.tool
	if f.detail != "" {
		what += ` "` + f.detail + `"`
	}
	var s string
	switch f.kind {
	case loopRepeat:
		s = fmt.Sprintf("You have called %s %d times with the same arguments and got the same result each time. "+
			"Calling it again will not change the result: use what it returned, change the arguments, or take another approach. "+
			"If you are waiting for something to change, say so and wait longer between checks.", what, f.count)
	case loopUnknownTool:
		s = fmt.Sprintf("There is no tool named %q (%d calls in a row failed). Call only the tools you were given, by their exact names.", f.tool, f.count)
	case loopBadArguments:
		s = fmt.Sprintf("%s rejected its arguments %d times in a row. Read the error and the tool's schema, then send valid JSON with every required field, of the right type.", what, f.count)
	case loopDenied:
		s = fmt.Sprintf("The operator's policy refused %s %d times in a row. A refused operation stays refused however it is phrased: "+
			"do the task another way, or finish and say in your answer what could not be done.", f.tool, f.count)
	case loopTimeout:
		s = fmt.Sprintf("%s timed out %d times in a row. Make the call smaller (a narrower command, fewer files) or do without it.", what, f.count)
	case loopMCPError:
		s = fmt.Sprintf("The MCP server behind %s failed %d times in a row: it may be down or misconfigured. "+
			"Stop calling it; carry on without it and say so in your answer.", f.tool, f.count)
	case loopCut:
		s = fmt.Sprintf("The arguments of %s were cut off at the output-token limit %d times in a row. Send much shorter arguments (write a large file in several parts).", f.tool, f.count)
	default:
		s = fmt.Sprintf("%s failed %d times in a row. Read the errors and change the arguments or the approach: the same call will fail again.", what, f.count)
	}
	if p.stopAfter > 0 {
		s += fmt.Sprintf(" The run is stopped if this goes on to %d.", p.stopAfter)
	}
	return s
}

// breakLoops counts a batch: the hints due are appended as one system
// message (and loop_hint events); a repetition past the limit is returned.
func (r *runner) breakLoops(i int, calls []llm.ToolCall, out []callOutcome) *LoopError {
	hints, stop := r.loops.observe(calls, out)
	if len(hints) > 0 {
		parts := make([]string, len(hints))
		for k, h := range hints {
			parts[k] = r.loops.hintText(h)
			r.emit(events.LoopHint, i, h.tool, map[string]any{"kind": h.kind, "count": h.count, "call_id": h.callID})
		}
		r.hist.Append(llm.Message{Role: llm.RoleSystem, Content: "[Loop breaker] " + strings.Join(parts, "\n\n")})
	}
	if stop == nil {
		return nil
	}
	return &LoopError{Tool: stop.tool, CallID: stop.callID, Detail: stop.detail, Kind: stop.kind, Count: stop.count, Limit: r.loops.stopAfter}
}

// loopStop ends a run the loop breaker stopped: the model is well, so a
// summary side call records what was achieved, as a budget stop does.
func (r *runner) loopStop(ctx context.Context, le *LoopError) (string, error) {
	var answer string
	if text, err := r.summarize(ctx); err == nil {
		answer = LoopMarker + "\n\n" + text
		r.hist.Append(llm.Message{Role: llm.RoleAssistant, Content: answer})
		r.afterBatch()
	} else if ctx.Err() != nil {
		return "", cause(ctx)
	}
	return answer, le
}

// canonicalArgs is a call's arguments in one spelling: parsed and encoded
// again (object keys sorted, no spaces, numbers as float64 reads them), so
// that `{"a":1, "b":2}` and `{"b":2,"a":1}` are the same call. Arguments
// that are not one JSON value are compared as they are.
func canonicalArgs(raw string) string {
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return strings.TrimSpace(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return strings.TrimSpace(raw)
	}
	return string(b)
}

// digest identifies a result.
type digest [16]byte

// resultDigest identifies a result's text, the untrusted-content fences
// (whose nonces are fresh on every call) left out.
func resultDigest(text string) digest {
	sum := sha256.Sum256([]byte(untrusted.Unfence(text)))
	return digest(sum[:16])
}
