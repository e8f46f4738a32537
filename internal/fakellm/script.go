package fakellm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Faults a turn can inject. A turn with a fault is consumed like any other.
const (
	FaultRateLimit      = "rate_limit"       // 429; Retry-After: fault_arg when set (seconds or an HTTP-date, verbatim)
	FaultServerError    = "server_error"     // 500 with an OpenAI-style error body
	FaultBadGateway     = "bad_gateway"      // 502 with an HTML body, as a proxy sends it
	FaultStatus         = "status"           // HTTP status fault_arg (e.g. 503, 504, 400, 403, 404) with an OpenAI-style error body
	FaultSlowFirstToken = "slow_first_token" // headers at once, then delay_ms (or fault_arg ms, default 500) before the first chunk
	FaultDropMidStream  = "drop_mid_stream"  // fault_arg chunks (default: half), then the connection is closed abruptly
	FaultMalformedSSE   = "malformed_sse"    // 200 with a body that breaks the protocol; fault_arg replaces the body verbatim
	FaultContextLength  = "context_length"   // 400 context_length_exceeded
	FaultUnauthorized   = "unauthorized"     // 401 invalid_api_key
	FaultHang           = "hang"             // no answer until the client goes away or the server closes
	FaultKeepAliveOnly  = "keepalive_only"   // streaming: headers, then only ": keep-alive" comments every fault_arg ms (default 20)
	FaultStallMidStream = "stall_mid_stream" // streaming: fault_arg chunks (default: half), then silence with the connection open
)

var knownFaults = map[string]bool{
	FaultRateLimit: true, FaultServerError: true, FaultBadGateway: true, FaultStatus: true,
	FaultSlowFirstToken: true, FaultDropMidStream: true, FaultMalformedSSE: true,
	FaultContextLength: true, FaultUnauthorized: true, FaultHang: true,
	FaultKeepAliveOnly: true, FaultStallMidStream: true,
}

// DefaultChunkSize is the streaming chunk size when a turn sets none.
const DefaultChunkSize = 16

// Script is the whole conversation the server plays: each POST to
// /chat/completions consumes the next turn.
type Script struct {
	// Model is echoed in responses; empty echoes the request's model.
	Model string `json:"model,omitempty"`
	// RejectParams are top-level request fields the endpoint does not
	// support: a request carrying one gets a 400 naming it and consumes no
	// turn, as OpenAI answers an unsupported parameter.
	RejectParams []string `json:"reject_params,omitempty"`
	// Refuse answers a request carrying one of these fields with the
	// provider's own error (see Refusal) and consumes no turn; checked
	// before RejectParams.
	Refuse []Refusal `json:"refuse,omitempty"`
	// AnyOrder lets each request take the first unused turn whose match fits
	// (a turn without match fits any request) instead of the next one: for
	// clients that call in parallel, such as sub-agents.
	AnyOrder bool `json:"any_order,omitempty"`
	// ChatOnly makes the server one without the Responses API: a request
	// to <base>/responses gets 404, as from an endpoint that predates it.
	ChatOnly bool   `json:"chat_only,omitempty"`
	Turns    []Turn `json:"turns"`
}

// Turn is one scripted answer (or fault). See the package documentation for
// the JSON form.
type Turn struct {
	Content          string `json:"content,omitempty"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// Reasoning is reasoning text sent under Ollama's name, "reasoning".
	Reasoning string `json:"reasoning,omitempty"`
	// EncryptedContent is the encrypted_content of the reasoning item a
	// Responses reply carries (OpenAI's opaque reasoning); "" sends the
	// reasoning text there, as Ollama does.
	EncryptedContent string       `json:"encrypted_content,omitempty"`
	ToolCalls        []ScriptCall `json:"tool_calls,omitempty"`
	// WholeCalls streams each tool call whole in one chunk (id, index, name
	// and all the arguments), as Ollama does.
	WholeCalls bool `json:"whole_calls,omitempty"`
	// NoIDs sends the tool calls without ids, as some local servers do.
	NoIDs bool `json:"no_ids,omitempty"`
	// Usage is reported as given. When nil, plausible numbers are generated
	// (prompt ≈ request bytes/4, completion ≈ output bytes/4) unless NoUsage.
	Usage *ScriptUsage `json:"-"`
	// NoUsage sends no usage at all (JSON: "usage": false).
	NoUsage bool `json:"-"`
	// FinishReason overrides "tool_calls" (when there are tool calls) / "stop".
	FinishReason string `json:"finish_reason,omitempty"`
	Fault        string `json:"fault,omitempty"`
	// FaultArg is the fault's argument as text (JSON: a number or a string).
	FaultArg string `json:"-"`
	// Match, when set, must be a substring of the last request message's
	// content; otherwise the server answers 500 with a message saying so and
	// the turn is NOT consumed.
	Match string `json:"match,omitempty"`
	// MatchModel, when set, must be the request's model, as Match must
	// be in its last message: a server that answers each model its own
	// way (one overloaded, the next answering).
	MatchModel   string `json:"match_model,omitempty"`
	DelayMs      int    `json:"delay_ms,omitempty"`       // before the first chunk (or the JSON body)
	ChunkDelayMs int    `json:"chunk_delay_ms,omitempty"` // between streamed chunks
	ChunkSize    int    `json:"chunk_size,omitempty"`     // bytes per content/arguments chunk; 0 = DefaultChunkSize
	// Interleave streams the argument chunks of several tool calls round-robin
	// instead of one call after the other.
	Interleave bool `json:"interleave,omitempty"`
	// AfterRequests holds the answer until the server has received this
	// many requests, the one answered included (0 = at once).
	AfterRequests int `json:"after_requests,omitempty"`
	// AfterRequestsMaxMs bounds that hold: after this long the answer goes
	// anyway (0 = no bound), so a test whose clients never all arrive
	// fails on what it then sees instead of hanging.
	AfterRequestsMaxMs int `json:"after_requests_max_ms,omitempty"`

	// repeat is the script's "repeat": ParseScript plays the turn that
	// many times (a model that makes one call again and again).
	repeat int
}

// maxRepeat bounds a turn's repeat.
const maxRepeat = 10000

// ScriptCall is one tool call the model makes.
type ScriptCall struct {
	ID   string `json:"id,omitempty"` // default "call_<turn>_<n>"
	Name string `json:"name"`
	// Arguments is raw JSON: an object (sent as its compact text) or a JSON
	// string, whose value is sent verbatim (for deliberately invalid JSON).
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ScriptUsage is a scripted usage report.
type ScriptUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens,omitempty"` // sent as prompt_tokens_details.cached_tokens
	// Cost is sent as usage.cost, the USD price OpenRouter reports.
	Cost *float64 `json:"cost,omitempty"`
}

// ArgumentsText is the arguments string sent on the wire.
func (c ScriptCall) ArgumentsText() string {
	raw := bytes.TrimSpace(c.Arguments)
	if len(raw) == 0 {
		return "{}"
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// turnJSON is Turn's wire form.
type turnJSON struct {
	Content          string          `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	Reasoning        string          `json:"reasoning,omitempty"`
	EncryptedContent string          `json:"encrypted_content,omitempty"`
	ToolCalls        []ScriptCall    `json:"tool_calls,omitempty"`
	WholeCalls       bool            `json:"whole_calls,omitempty"`
	NoIDs            bool            `json:"no_ids,omitempty"`
	Usage            json.RawMessage `json:"usage,omitempty"`
	FinishReason     string          `json:"finish_reason,omitempty"`
	Fault            string          `json:"fault,omitempty"`
	FaultArg         json.RawMessage `json:"fault_arg,omitempty"`
	Match            string          `json:"match,omitempty"`
	MatchModel       string          `json:"match_model,omitempty"`
	DelayMs          int             `json:"delay_ms,omitempty"`
	ChunkDelayMs     int             `json:"chunk_delay_ms,omitempty"`
	ChunkSize        int             `json:"chunk_size,omitempty"`
	Interleave       bool            `json:"interleave,omitempty"`
	AfterRequests    int             `json:"after_requests,omitempty"`
	AfterRequestsMax int             `json:"after_requests_max_ms,omitempty"`
	Repeat           int             `json:"repeat,omitempty"`
}

// UnmarshalJSON decodes a turn strictly: unknown fields are errors.
func (t *Turn) UnmarshalJSON(b []byte) error {
	var w turnJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return err
	}
	*t = Turn{
		Content: w.Content, ReasoningContent: w.ReasoningContent, Reasoning: w.Reasoning,
		EncryptedContent: w.EncryptedContent, ToolCalls: w.ToolCalls, WholeCalls: w.WholeCalls, NoIDs: w.NoIDs,
		FinishReason: w.FinishReason, Fault: w.Fault, Match: w.Match, MatchModel: w.MatchModel,
		DelayMs: w.DelayMs, ChunkDelayMs: w.ChunkDelayMs, ChunkSize: w.ChunkSize, Interleave: w.Interleave,
		AfterRequests: w.AfterRequests, AfterRequestsMaxMs: w.AfterRequestsMax, repeat: w.Repeat,
	}
	if w.Repeat < 0 || w.Repeat > maxRepeat {
		return fmt.Errorf("repeat: want 1..%d, got %d", maxRepeat, w.Repeat)
	}
	switch u := strings.TrimSpace(string(w.Usage)); u {
	case "", "null", "true":
	case "false":
		t.NoUsage = true
	default:
		var su ScriptUsage
		d := json.NewDecoder(strings.NewReader(u))
		d.DisallowUnknownFields()
		if err := d.Decode(&su); err != nil {
			return fmt.Errorf("usage: want false or {\"prompt_tokens\":N,\"completion_tokens\":N}: %v", err)
		}
		t.Usage = &su
	}
	if a := bytes.TrimSpace(w.FaultArg); len(a) > 0 && string(a) != "null" {
		if a[0] == '"' {
			if err := json.Unmarshal(a, &t.FaultArg); err != nil {
				return fmt.Errorf("fault_arg: %v", err)
			}
		} else {
			var n json.Number
			if err := json.Unmarshal(a, &n); err != nil {
				return fmt.Errorf("fault_arg: want a number or a string, got %s", a)
			}
			t.FaultArg = n.String()
		}
	}
	return nil
}

// MarshalJSON encodes a turn in the form ParseScript reads.
func (t Turn) MarshalJSON() ([]byte, error) {
	w := turnJSON{
		Content: t.Content, ReasoningContent: t.ReasoningContent, Reasoning: t.Reasoning,
		EncryptedContent: t.EncryptedContent, ToolCalls: t.ToolCalls, WholeCalls: t.WholeCalls, NoIDs: t.NoIDs,
		FinishReason: t.FinishReason, Fault: t.Fault, Match: t.Match, MatchModel: t.MatchModel,
		DelayMs: t.DelayMs, ChunkDelayMs: t.ChunkDelayMs, ChunkSize: t.ChunkSize, Interleave: t.Interleave,
		AfterRequests: t.AfterRequests, AfterRequestsMax: t.AfterRequestsMaxMs,
	}
	switch {
	case t.NoUsage:
		w.Usage = json.RawMessage("false")
	case t.Usage != nil:
		b, err := json.Marshal(t.Usage)
		if err != nil {
			return nil, err
		}
		w.Usage = b
	}
	if t.FaultArg != "" {
		if _, err := strconv.ParseFloat(t.FaultArg, 64); err == nil {
			w.FaultArg = json.RawMessage(t.FaultArg)
		} else {
			b, _ := json.Marshal(t.FaultArg)
			w.FaultArg = b
		}
	}
	return json.Marshal(w)
}

// LoadScript reads and parses a script file.
func LoadScript(path string) (*Script, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fakellm: %w", err)
	}
	s, err := ParseScript(b)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return s, nil
}

// ParseScript parses a script: {"model": "...", "turns": [...]} or, for short,
// a bare array of turns. Unknown fields, unknown faults and invalid values are
// errors that name the turn (1-based).
func ParseScript(b []byte) (*Script, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return nil, errors.New("fakellm: script is empty")
	}
	var top struct {
		Model        string            `json:"model"`
		RejectParams []string          `json:"reject_params"`
		Refuse       []Refusal         `json:"refuse"`
		AnyOrder     bool              `json:"any_order"`
		ChatOnly     bool              `json:"chat_only"`
		Turns        []json.RawMessage `json:"turns"`
	}
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &top.Turns); err != nil {
			return nil, fmt.Errorf("fakellm: script: %s", jsonErr(trimmed, err))
		}
	} else {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&top); err != nil {
			return nil, fmt.Errorf("fakellm: script: %s", jsonErr(trimmed, err))
		}
		if dec.More() {
			return nil, errors.New("fakellm: script: trailing data after the top-level object")
		}
	}
	if len(top.Turns) == 0 {
		return nil, errors.New(`fakellm: script has no turns (want {"turns": [...]})`)
	}
	s := &Script{Model: top.Model, RejectParams: top.RejectParams, Refuse: top.Refuse, AnyOrder: top.AnyOrder, ChatOnly: top.ChatOnly}
	for i, raw := range top.Turns {
		var t Turn
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("fakellm: script: turn %d: %s", i+1, jsonErr(raw, err))
		}
		for range max(t.repeat, 1) {
			s.Turns = append(s.Turns, t)
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// jsonErr adds a line:column to JSON syntax errors.
func jsonErr(b []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := 1, 1
		for _, c := range b[:min(int(se.Offset), len(b))] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Sprintf("line %d, column %d: %v", line, col, err)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// Validate checks a script built in Go (ParseScript calls it). A server given
// an invalid script answers every request with 500 and the reason.
func (s *Script) Validate() error {
	if s == nil {
		return errors.New("fakellm: script is nil")
	}
	for _, p := range s.RejectParams {
		if p == "" || p == "model" || p == "messages" {
			return fmt.Errorf("fakellm: script: reject_params: %q cannot be rejected", p)
		}
	}
	if err := validateRefusals(s.Refuse); err != nil {
		return err
	}
	for i, t := range s.Turns {
		if err := t.validate(); err != nil {
			return fmt.Errorf("fakellm: script: turn %d: %w", i+1, err)
		}
	}
	return nil
}

func (t *Turn) validate() error {
	if t.Fault != "" && !knownFaults[t.Fault] {
		names := make([]string, 0, len(knownFaults))
		for k := range knownFaults {
			names = append(names, k)
		}
		sort.Strings(names)
		return fmt.Errorf("unknown fault %q (known: %s)", t.Fault, strings.Join(names, ", "))
	}
	if t.DelayMs < 0 || t.ChunkDelayMs < 0 || t.ChunkSize < 0 || t.AfterRequests < 0 || t.AfterRequestsMaxMs < 0 {
		return errors.New("delay_ms, chunk_delay_ms, chunk_size, after_requests and after_requests_max_ms must not be negative")
	}
	if t.Usage != nil && t.NoUsage {
		return errors.New("usage is both set and disabled")
	}
	if u := t.Usage; u != nil && (u.PromptTokens < 0 || u.CompletionTokens < 0 || u.CachedTokens < 0) {
		return errors.New("usage numbers must not be negative")
	}
	switch t.Fault {
	case FaultStatus:
		code, err := strconv.Atoi(t.FaultArg)
		if err != nil || code < 200 || code > 599 {
			return fmt.Errorf("fault %q needs fault_arg: an HTTP status (200-599), got %q", t.Fault, t.FaultArg)
		}
	case FaultDropMidStream, FaultSlowFirstToken, FaultKeepAliveOnly, FaultStallMidStream:
		if t.FaultArg != "" {
			if n, err := strconv.Atoi(t.FaultArg); err != nil || n < 0 {
				return fmt.Errorf("fault %q: fault_arg must be a non-negative integer, got %q", t.Fault, t.FaultArg)
			}
		}
	case "", FaultRateLimit, FaultMalformedSSE:
	default:
		if t.FaultArg != "" {
			return fmt.Errorf("fault %q takes no fault_arg", t.Fault)
		}
	}
	for j, c := range t.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool call %d has no name", j+1)
		}
		if len(bytes.TrimSpace(c.Arguments)) > 0 && !json.Valid(c.Arguments) {
			return fmt.Errorf("tool call %d (%s): arguments are not valid JSON", j+1, c.Name)
		}
	}
	return nil
}
