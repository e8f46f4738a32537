package runview

import (
	"maps"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/prompt"
)

// The lines --output stream-json adds to the odek.event/v1 events so a
// person can follow a run: an opening init line, the model's text and the
// tool results. They are their own schema (docs/schema/stream.schema.json):
// the event contract stays as it is, and --events-jsonl never gets them.
// They travel through the emitter, so they are redacted like every event
// and keep their order among the events.
const (
	streamSchema = "odek.stream/v1"
	streamPrefix = "stream." // an emitter type with it is a stream line
)

// The stream line types, as the emitter carries them.
var (
	streamInit       = events.Type(streamPrefix + "init")
	streamText       = events.Type(streamPrefix + "text")
	streamToolResult = events.Type(streamPrefix + "tool_result")
)

// streamResultChars caps the content of a tool_result line; the model saw
// the whole result (within the tool's own caps).
const streamResultChars = 4000

// StreamSink writes events and stream lines to stdout.
type StreamSink struct{ *events.JSONLSink }

func (s StreamSink) Write(ev *events.Event) error {
	if t, ok := strings.CutPrefix(string(ev.Type), streamPrefix); ok {
		line := *ev
		line.Schema, line.Type = streamSchema, events.Type(t)
		return s.JSONLSink.Write(&line)
	}
	return s.JSONLSink.Write(ev)
}

// EventsOnly keeps the stream lines out of an odek.event/v1 file.
type EventsOnly struct{ events.Sink }

func (s EventsOnly) Write(ev *events.Event) error {
	if strings.HasPrefix(string(ev.Type), streamPrefix) {
		return nil
	}
	return s.Sink.Write(ev)
}

// Streamer turns the loop's replies and batches into stream lines.
type Streamer struct {
	em        *events.Emitter
	pending   map[string]pendingCall // tool calls of the current batch, by id
	lastFinal string                 // the text of the last reply without tool calls
}

type pendingCall struct {
	iteration int
	tool      string
}

// Init is what the stream's opening line says the run starts with.
type Init struct {
	Model, Dir, Version string
	Tools               []string // the offered tools' names
	Servers             []string // the started MCP servers
	OutputSchema        bool     // --output-schema holds the answer
}

// StartStream opens the stream lines of a stream-json run: the init line
// now, then the model's text and the tool results as the loop goes (it
// sets opts.OnReply and runs before opts.AfterBatch). The Streamer it
// returns streams the final answer no reply carried (Answer).
func StartStream(em *events.Emitter, in Init, opts *loop.Options) *Streamer {
	em.Emit(streamInit, 0, "", initData(in))
	st := &Streamer{em: em}
	opts.OnReply = st.reply
	after := opts.AfterBatch
	opts.AfterBatch = func(h []llm.Message) {
		st.results(h)
		if after != nil {
			after(h)
		}
	}
	return st
}

// initData lists what the run starts with: model, directory, tools and
// MCP servers (with how many of their tools are offered).
func initData(in Init) map[string]any {
	servers := map[string]int{}
	for _, name := range in.Servers {
		servers[name] = 0
	}
	for _, n := range in.Tools {
		if server, _, ok := strings.Cut(n, prompt.MCPSeparator); ok {
			servers[server]++
		}
	}
	list := make([]any, 0, len(servers))
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		list = append(list, map[string]any{"name": name, "tools": servers[name]})
	}
	tools := make([]any, len(in.Tools))
	for i, n := range in.Tools {
		tools[i] = n
	}
	d := map[string]any{"model": in.Model, "cwd": in.Dir, "tools": tools, "mcp_servers": list, "version": in.Version}
	if in.OutputSchema {
		d["output_schema"] = true
	}
	return d
}

// reply emits the model's text, if any, and remembers its calls.
func (st *Streamer) reply(i int, m llm.Message) {
	st.pending = map[string]pendingCall{}
	for _, c := range m.ToolCalls {
		st.pending[c.ID] = pendingCall{iteration: i, tool: c.Function.Name}
	}
	if strings.TrimSpace(m.Content) == "" {
		return
	}
	if len(m.ToolCalls) == 0 {
		st.lastFinal = m.Content
	}
	st.em.Emit(streamText, i, "", map[string]any{"text": m.Content, "final": len(m.ToolCalls) == 0})
}

// Answer streams a final answer no reply carried: the summary the loop
// asks for at the iteration cap, after a tool-call budget stop or at a
// soft deadline. A nil Streamer (no stream-json) does nothing.
func (st *Streamer) Answer(res *loop.Result) {
	if st == nil || res == nil || strings.TrimSpace(res.Answer) == "" || res.Answer == st.lastFinal {
		return
	}
	st.lastFinal = res.Answer
	st.em.Emit(streamText, res.Iterations, "", map[string]any{"text": res.Answer, "final": true})
}

// results emits the results of the batch the last reply asked for, in the
// order of the history.
func (st *Streamer) results(h []llm.Message) {
	if len(st.pending) == 0 {
		return
	}
	start := len(h)
	for start > 0 && h[start-1].Role != llm.RoleAssistant {
		start--
	}
	for _, m := range h[start:] {
		c, ok := st.pending[m.ToolCallID]
		if m.Role != llm.RoleTool || !ok {
			continue
		}
		delete(st.pending, m.ToolCallID)
		st.em.Emit(streamToolResult, c.iteration, c.tool, resultData(m))
	}
	st.pending = nil
}

// resultData is a tool_result line's data: the result as the model saw
// it, without odek's frame, cut to streamResultChars.
func resultData(m llm.Message) map[string]any {
	body := unframe(m.Content)
	runes := []rune(body)
	d := map[string]any{"call_id": m.ToolCallID, "is_error": strings.HasPrefix(body, "error: "), "chars": len(runes)}
	if len(runes) > streamResultChars {
		body = string(runes[:streamResultChars])
		d["truncated"] = true
	}
	d["content"] = body
	return d
}

// unframe takes the loop's TOOL RESULT frame off a result: its first and
// last lines.
func unframe(s string) string {
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || !strings.HasPrefix(first, "┌── TOOL RESULT: ") {
		return s
	}
	i := strings.LastIndex(rest, "\n")
	if i < 0 || !strings.HasPrefix(rest[i+1:], "└── END TOOL RESULT: ") {
		return s
	}
	return rest[:i]
}
