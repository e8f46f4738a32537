package llm

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"unsafe"

	openai "github.com/sashabaranov/go-openai"
)

// The Responses wire (DECISIONS 14 and 17). A request is go-openai's
// CreateResponseRequest, sent with CreateResponse or CreateResponseStream.
// Its Input is what go-openai documents it to take, "a slice of response
// input items": a []json.RawMessage whose items are each encoded once, with
// go-openai's own item types, the first time the message is sent, and reused
// from then on (itemCache). The tools are converted once per tool list. So a
// request is the instructions, the tools and the items so far, and the items
// of request N are, byte for byte and in order, the first items of request
// N+1 (until a trim or a plan update rewrites a message).
//
// A message becomes items by one rule (messageItems):
//   - the first message, when it is odek's system prompt, is the
//     instructions; any other system message is a "system" message item;
//   - a user message is a "user" message item, a tool result a
//     function_call_output item (an empty one as EmptyContentPlaceholder);
//   - an assistant message is its reasoning items as the provider sent them,
//     then a message item for its text, then a function_call item per call;
//     one with neither text nor calls is left out with its reasoning, which
//     must never be sent without the item that followed it.

// storeOff is sent as store: false: odek keeps the conversation itself and
// asks for the reasoning's encrypted content instead (OpenAI's stateless use).
var storeOff = false

// includeReasoning asks for the reasoning's encrypted content, to send it back.
var includeReasoning = []openai.ResponseInclude{openai.ResponseIncludeReasoningEncryptedContent}

// responsesRequest builds the Responses request for req; release says the
// request is no longer read (its items may then be reused in place).
func (c *Client) responsesRequest(req Request) (openai.CreateResponseRequest, func()) {
	reasoning := c.sendsReasoningItems()
	out := openai.CreateResponseRequest{Model: req.Model, Store: &storeOff, MaxOutputTokens: req.MaxTokens}
	msgs := req.Messages
	if len(msgs) > 0 && msgs[0].Role == RoleSystem && msgs[0].Kind == "" {
		out.Instructions = msgs[0].Content
		msgs = msgs[1:]
	}
	items, release := c.items.encode(msgs, reasoning)
	out.Input = items
	if len(req.Tools) > 0 {
		out.Tools = c.items.tools(req.Tools)
	}
	if req.ReasoningEffort != "" {
		out.Reasoning = &openai.ResponseReasoning{Effort: req.ReasoningEffort}
	}
	if rf := req.ResponseFormat; rf != nil {
		out.Text = &openai.ResponseTextConfig{Format: &openai.ResponseTextFormat{
			Type: "json_schema", Name: rf.Name, Schema: rf.Schema, Strict: rf.Strict}}
	}
	if reasoning {
		out.Include = includeReasoning
	}
	if c.cacheKey != "" && !c.dropped.has(FieldPromptCacheKey) {
		out.PromptCacheKey = c.cacheKey
	}
	return out, release
}

// sendsReasoningItems reports whether reasoning items still go back (the
// endpoint has not refused one in this run).
func (c *Client) sendsReasoningItems() bool { return !c.dropped.has(FieldReasoningItems) }

// carriesReasoningItems reports whether some assistant message of msgs that
// is sent carries reasoning items.
func carriesReasoningItems(msgs []Message) bool {
	for i := range msgs {
		if m := &msgs[i]; len(m.ReasoningItems) > 0 && m.Role == RoleAssistant && !carriesNothing(m) {
			return true
		}
	}
	return false
}

// messageItems encodes m as Responses input items (the rule above).
func messageItems(m *Message, reasoning bool) []json.RawMessage {
	var out []json.RawMessage
	add := func(v any) {
		b, err := json.Marshal(v)
		if err == nil { // go-openai's item types of strings always marshal
			out = append(out, b)
		}
	}
	switch m.Role {
	case RoleTool:
		text := m.Content
		if text == "" {
			text = EmptyContentPlaceholder
		}
		add(openai.ResponseFunctionCallOutput{Type: "function_call_output", CallID: m.ToolCallID, Output: text})
	case RoleAssistant:
		if carriesNothing(m) {
			return nil
		}
		if reasoning {
			out = append(out, m.ReasoningItems...)
		}
		if m.Content != "" {
			add(openai.ResponseInputMessage{Type: "message", Role: RoleAssistant, Content: m.Content})
		}
		for _, tc := range m.ToolCalls {
			args := tc.Function.Arguments
			if args == "" {
				args = "{}" // go-openai leaves an empty arguments field out; the API requires it
			}
			add(openai.ResponseOutputItem{Type: "function_call", CallID: tc.ID, Name: tc.Function.Name, Arguments: args})
		}
	case RoleSystem:
		if m.Content == "" {
			return nil
		}
		add(openai.ResponseInputMessage{Type: "message", Role: RoleSystem, Content: m.Content})
	default:
		text := m.Content
		if text == "" {
			text = EmptyContentPlaceholder
		}
		add(openai.ResponseInputMessage{Type: "message", Role: m.Role, Content: text})
	}
	return out
}

// itemCache keeps the items of a client's last request, so the next one
// re-encodes only the messages that are new or changed: the messages of
// the new request are compared, in order, with the copies kept from the
// last (strings that share their bytes compare in O(1), so an unchanged
// message costs a few pointer compares), the items of the common prefix are
// reused as they are, and only the rest is encoded. A message edited in
// place (a truncated result) no longer compares equal and is encoded again;
// a trim that shifts the history costs one re-encoding of what follows it.
// Side calls (compaction's digest, a summary) have their own system prompt
// and so their own lane, and do not evict the run's.
type itemCache struct {
	mu     sync.Mutex
	lanes  map[string]*itemLane // by the first message's text
	specs  []ToolSpec
	otools []openai.Tool
}

// itemLane is one conversation's last request: its messages (copies), the
// reasoning setting they were encoded with, and their items, ends[i] being
// the number of items of msgs[:i+1].
type itemLane struct {
	msgs      []Message
	reasoning bool
	items     []json.RawMessage
	ends      []int
	inflight  int // requests of the lane not yet released
}

// maxLanes bounds the lanes kept; a new one beyond it replaces them all.
const maxLanes = 4

// encode returns the input items of msgs, encoding only the messages the
// last request of their lane did not end with, and the release to call once
// the request is no longer read.
func (ic *itemCache) encode(msgs []Message, reasoning bool) ([]json.RawMessage, func()) {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	key := ""
	if len(msgs) > 0 {
		key = msgs[0].Content
	}
	l := ic.lanes[key]
	if l == nil {
		if len(ic.lanes) >= maxLanes || ic.lanes == nil {
			ic.lanes = make(map[string]*itemLane, maxLanes)
		}
		l = &itemLane{}
		ic.lanes[key] = l
	}
	same := 0
	if l.reasoning == reasoning {
		for same < len(msgs) && same < len(l.msgs) && encodesSame(&l.msgs[same], &msgs[same]) {
			same++
		}
	}
	kept := 0
	if same > 0 {
		kept = l.ends[same-1]
	}
	var out []json.RawMessage
	if kept == len(l.items) || l.inflight == 0 {
		// Extend the last request's items in place: either all of them are
		// kept (a slice handed out before ends at or before kept, so
		// appending never changes what it holds), or no request of the lane
		// is still being read.
		out = l.items[:kept]
	} else {
		out = make([]json.RawMessage, kept, kept+2*(len(msgs)-same)+1)
		copy(out, l.items[:kept])
	}
	l.msgs, l.ends = append(l.msgs[:same], msgs[same:]...), l.ends[:same]
	for i := same; i < len(msgs); i++ {
		out = append(out, messageItems(&msgs[i], reasoning)...)
		l.ends = append(l.ends, len(out))
	}
	l.items, l.reasoning = out, reasoning
	l.inflight++
	var once sync.Once
	return out, func() {
		once.Do(func() {
			ic.mu.Lock()
			l.inflight--
			ic.mu.Unlock()
		})
	}
}

// encodesSame reports whether a and b encode the same. The history's copies
// of a message share its strings and slices, so identity is checked first
// (inline, no call); contents are compared only when it fails.
func encodesSame(a, b *Message) bool {
	return sameString(a.Content, b.Content) && sameString(a.Role, b.Role) && sameString(a.ToolCallID, b.ToolCallID) &&
		sameCalls(a.ToolCalls, b.ToolCalls) && sameItems(a.ReasoningItems, b.ReasoningItems)
}

func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

func sameCalls(a, b []ToolCall) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0] || slices.Equal(a, b))
}

func sameItems(a, b []json.RawMessage) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0] ||
		slices.EqualFunc(a, b, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) }))
}

// tools converts specs to go-openai's Responses function tools, once per
// tool list (a run passes the same list on every request).
func (ic *itemCache) tools(specs []ToolSpec) []openai.Tool {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	if len(specs) == len(ic.specs) && &specs[0] == &ic.specs[0] {
		return ic.otools
	}
	out := make([]openai.Tool, len(specs))
	for i, t := range specs {
		params := t.Parameters
		if s := strings.TrimSpace(string(params)); s == "" || s == "null" {
			params = defaultParameters
		}
		out[i] = openai.NewResponseFunctionTool(openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params})
	}
	ic.specs, ic.otools = specs, out
	return out
}
