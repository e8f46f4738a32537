// Package llm is odek's client for OpenAI-compatible chat-completion endpoints.
//
// It is go-openai used as the library it is: requests are its
// ChatCompletionRequest, sent with CreateChatCompletionStream (the default)
// or CreateChatCompletion, and HTTP and API errors come from its error types.
// This package adds what a long-running agent needs around one call:
// assembling streamed tool calls, per-call usage and timing, four timeouts
// on every attempt (timeouts.go) so no endpoint can hang a run, retries of
// transient failures with jittered backoff (retry.go), and typed errors that
// name their error_class (errors.go). The only fields decoded by hand are the
// ones go-openai's response types drop (decode.go).
//
// Invariants: a request is never rewritten on its way out (the one
// RoundTripper only observes); a Response is returned only when the
// provider said the reply finished (a finish_reason); a cancelled ctx is
// never retried.
//
// The message types below are odek's own so that the loop, sessions and events
// never depend on the wire library.
package llm

import (
	"encoding/json"
	"time"

	"github.com/odek-run/odek/internal/msgkind"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message as it is kept in history and persisted.
type Message struct {
	Role             string     `json:"role"`
	Content          string     `json:"content"`
	Name             string     `json:"name,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	// ReasoningItems are the reasoning output items of a reply on the
	// Responses wire, each exactly as the provider sent it (compacted), so
	// that they go back byte for byte in every later request: OpenAI's
	// encrypted reasoning, Ollama's thinking. The chat wire ignores them.
	ReasoningItems []json.RawMessage `json:"reasoning_items,omitempty"`
	// Kind says what odek wrote the message as (the plan, a digest, a trim
	// marker); "" for a conversation message. Code tells markers by it, never
	// by their text. It is kept and persisted, never sent to the provider.
	Kind msgkind.Kind `json:"kind,omitempty"`
	// Count is the number a removal marker reports (messages or groups
	// removed), kept beside its text so it is never parsed back; 0 otherwise.
	Count int `json:"count,omitempty"`
}

// ToolCall is one function call requested by the model.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // always "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its raw JSON arguments.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // a JSON Schema object
}

// Wires: the API a Client speaks (Options.WireAPI).
const (
	WireChat      = "chat"      // /chat/completions, go-openai's ChatCompletionRequest (the default)
	WireResponses = "responses" // /responses, go-openai's CreateResponseRequest (responses.go)
)

// Request is one model call.
type Request struct {
	Model     string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int // 0 = provider default
	// ReasoningEffort is sent as reasoning_effort ("low", "medium", "high");
	// "" sends none.
	ReasoningEffort string
	// ResponseFormat, when set, asks for a reply that is one JSON value
	// matching a schema.
	ResponseFormat *ResponseFormat
}

// ResponseFormat is sent as response_format {"type": "json_schema",
// "json_schema": {name, schema, strict}} (OpenAI's structured outputs).
type ResponseFormat struct {
	Name   string          // [A-Za-z0-9_-]{1,64}
	Schema json.RawMessage // a JSON Schema object
	Strict bool
}

// Usage is what the provider reported for one call. Present is false when the
// provider sent no usage at all (some local servers do not). InputTokens is
// the prompt without the cache tokens; Prompt is the whole prompt.
type Usage struct {
	InputTokens         int64
	OutputTokens        int64
	CacheReadTokens     int64
	CacheCreationTokens int64
	ReasoningTokens     int64 // part of OutputTokens, when the provider says
	// CostUSD is the call's price as the provider reported it (OpenRouter's
	// usage.cost), when CostReported.
	CostUSD      float64
	CostReported bool
	Present      bool
}

// Prompt is the whole prompt as the provider counted it: uncached, cache
// read and cache written.
func (u Usage) Prompt() int64 { return u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens }

// Timing is measured by the client for one call, retries excluded.
type Timing struct {
	TimeToFirstToken time.Duration // streaming only; 0 when unknown
	Generation       time.Duration // first token to end of response; streaming only
	Total            time.Duration // request sent to response complete
	// TokenChunks counts the stream chunks that carried text, reasoning or a
	// tool-call piece. A rate over one chunk means nothing (a server that sends
	// a whole tool call at once), so consumers skip rates below two.
	TokenChunks int
}

// Response is the assembled result of one call.
type Response struct {
	Message      Message // role assistant; tool calls assembled from deltas
	Usage        Usage
	Timing       Timing
	FinishReason string
	Attempts     int // 1 + retries used
	// Model is the model that served the response: the request's (a
	// Chain's fallback, after a switch), which prices it.
	Model string
	// ServedModel is the model the provider named in its answer ("" when
	// it named none); it may be a dated version of Model.
	ServedModel string
}
