package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// requestEncoder builds chat-completion request bodies itself, encoding each
// history message once.
//
// go-openai re-marshals the whole history on every call, through a MarshalJSON
// per message whose output encoding/json then re-compacts; with long tool
// outputs in history that costs milliseconds per iteration and grows with the
// conversation. Messages in history are immutable values, so their encoding
// is cached, keyed by the identity of their strings (data pointer and length,
// O(1) to hash and exact: strings are immutable, and the key keeps the bytes
// alive so an address cannot be reused while cached). A message replaced by a
// new value (trimming, redaction) has new strings and so a new key. Entries a
// request does not use are evicted after it, so the cache holds at most one
// history's encoding.
type requestEncoder struct {
	mu       sync.Mutex
	gen      uint64
	lastSize int
	msgs     map[msgKey]*cachedMsg
	tools    struct {
		first *ToolSpec
		n     int
		json  []byte
	}
}

type strKey struct {
	p *byte
	n int
}

func keyOf(s string) strKey { return strKey{unsafe.StringData(s), len(s)} }

// msgKey identifies a message value by its fields' identities.
type msgKey struct {
	role, name, callID, content, reasoning strKey
	calls                                  *ToolCall
	ncalls                                 int
}

type cachedMsg struct {
	gen  uint64
	json []byte
}

func newRequestEncoder() *requestEncoder {
	return &requestEncoder{msgs: map[msgKey]*cachedMsg{}}
}

// wireMessage is one message as the API takes it.
type wireMessage struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content,omitempty"`
	Name             string         `json:"name,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// encode returns the JSON body for req.
func (e *requestEncoder) encode(req Request, stream bool) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gen++
	var b bytes.Buffer
	b.Grow(e.lastSize + 4096) // histories grow a little per call
	defer func() { e.lastSize = b.Len() }()
	b.WriteString(`{"model":`)
	writeString(&b, req.Model)
	b.WriteString(`,"messages":[`)
	for i := range req.Messages {
		if i > 0 {
			b.WriteByte(',')
		}
		enc, err := e.message(i, &req.Messages[i])
		if err != nil {
			return nil, err
		}
		b.Write(enc)
	}
	b.WriteByte(']')
	if len(req.Tools) > 0 {
		tools, err := e.toolsJSON(req.Tools)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"tools":`)
		b.Write(tools)
	}
	if req.MaxTokens > 0 {
		field := "max_tokens"
		if usesMaxCompletionTokens(req.Model) {
			field = "max_completion_tokens"
		}
		b.WriteString(`,"` + field + `":` + strconv.Itoa(req.MaxTokens))
	}
	if rf := responseFormat(req.ResponseFormat); rf != nil {
		enc, err := marshalNoEscape(rf)
		if err != nil {
			return nil, fmt.Errorf("response_format: %w", err)
		}
		b.WriteString(`,"response_format":`)
		b.Write(enc)
	}
	if stream {
		b.WriteString(`,"stream":true,"stream_options":{"include_usage":true}`)
	} else {
		b.WriteString(`,"stream":false`)
	}
	b.WriteByte('}')
	e.evict()
	return b.Bytes(), nil
}

// message returns m's cached encoding, encoding it on first use.
func (e *requestEncoder) message(i int, m *Message) ([]byte, error) {
	k := msgKey{role: keyOf(m.Role), name: keyOf(m.Name), callID: keyOf(m.ToolCallID),
		content: keyOf(m.Content), reasoning: keyOf(m.ReasoningContent), ncalls: len(m.ToolCalls)}
	if len(m.ToolCalls) > 0 {
		k.calls = &m.ToolCalls[0]
	}
	if c, ok := e.msgs[k]; ok {
		c.gen = e.gen
		return c.json, nil
	}
	enc, err := encodeMessage(i, m)
	if err != nil {
		return nil, err
	}
	e.msgs[k] = &cachedMsg{gen: e.gen, json: enc}
	return enc, nil
}

// encodeMessage applies the wire rules: an empty content is sent as a
// placeholder (the API requires content on tool, user and system messages),
// except on an assistant message with tool calls, which goes without.
func encodeMessage(i int, m *Message) ([]byte, error) {
	w := wireMessage{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID, ReasoningContent: m.ReasoningContent}
	for j, tc := range m.ToolCalls {
		if tc.Function.Name == "" {
			return nil, fmt.Errorf("message %d: tool call %d has no function name", i, j)
		}
		typ := tc.Type
		if typ == "" {
			typ = "function"
		}
		w.ToolCalls = append(w.ToolCalls, wireToolCall{ID: tc.ID, Type: typ, Function: tc.Function})
	}
	content := m.Content
	if content == "" && len(m.ToolCalls) == 0 {
		content = EmptyContentPlaceholder
	}
	if content != "" {
		w.Content = &content
	}
	return marshalNoEscape(w)
}

// toolsJSON encodes the tool specs once per registry: the loop passes the
// same slice on every call.
func (e *requestEncoder) toolsJSON(tools []ToolSpec) ([]byte, error) {
	if e.tools.first == &tools[0] && e.tools.n == len(tools) {
		return e.tools.json, nil
	}
	wire := make([]wireTool, 0, len(tools))
	for _, t := range tools {
		params := t.Parameters
		if s := strings.TrimSpace(string(params)); s == "" || s == "null" {
			params = defaultParameters
		} else if !json.Valid(params) {
			return nil, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
		}
		wire = append(wire, wireTool{Type: "function", Function: wireFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	enc, err := marshalNoEscape(wire)
	if err != nil {
		return nil, err
	}
	e.tools.first, e.tools.n, e.tools.json = &tools[0], len(tools), enc
	return enc, nil
}

// evict drops the messages the last request did not use.
func (e *requestEncoder) evict() {
	for k, c := range e.msgs {
		if c.gen != e.gen {
			delete(e.msgs, k)
		}
	}
}

// marshalNoEscape is json.Marshal without HTML escaping (tool output is full
// of < and >; escaping them only bloats the request) and without the newline.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := marshalNoEscape(s) // a string always encodes
	b.Write(enc)
}
