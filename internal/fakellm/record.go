package fakellm

import (
	"encoding/json"
	"net/http"
	"strings"
)

// RecordedRequest is one request as the server received it.
type RecordedRequest struct {
	Turn   int // 1-based turn the request consumed; 0 when it consumed none
	Method string
	Path   string
	Header http.Header
	Body   []byte // raw request body

	// Wire is "responses" for a request to <base>/responses, else "chat".
	Wire string

	// Parsed from Body when it is a chat-completions or Responses JSON
	// request. A Responses request's items are folded into Messages the way
	// a server reads them: the instructions first as a system message, a
	// function_call joined to the assistant message before it (or starting
	// one), a reasoning item kept on the assistant message it precedes.
	Model               string
	Messages            []RecordedMessage
	Tools               []RecordedTool
	Stream              bool
	IncludeUsage        bool // stream_options.include_usage
	MaxTokens           int
	MaxCompletionTokens int
	ReasoningEffort     string
	// ToolsField is true when the body has a "tools" key at all (models
	// without tool support reject any, even an empty list).
	ToolsField  bool
	DecodeError string // why Body did not parse, if it did not

	// Responses requests only: the fields as sent.
	Instructions   string
	Input          []json.RawMessage // the input items, compacted
	Include        []string
	Store          *bool
	PromptCacheKey string
	TextFormat     json.RawMessage // text.format
}

// RecordedMessage is one message of a recorded request. Content is the text,
// whether it was sent as a string or as text parts; ContentPresent is false
// when the field was absent or null.
type RecordedMessage struct {
	Role             string
	Content          string
	ContentPresent   bool
	Name             string
	ToolCallID       string
	ReasoningContent string
	Reasoning        string // Ollama's name for reasoning_content
	ToolCalls        []RecordedToolCall
	// ReasoningItems are the reasoning items of a Responses request that
	// precede this assistant message, as sent.
	ReasoningItems []json.RawMessage
}

// RecordedToolCall is a tool call inside a recorded assistant message.
type RecordedToolCall struct {
	ID, Type, Name, Arguments string
}

// RecordedTool is one offered tool.
type RecordedTool struct {
	Type        string
	Name        string
	Description string
	Parameters  json.RawMessage
}

type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		Name             string          `json:"name"`
		ToolCallID       string          `json:"tool_call_id"`
		ReasoningContent string          `json:"reasoning_content"`
		Reasoning        string          `json:"reasoning"`
		ToolCalls        []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools         json.RawMessage `json:"tools"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int    `json:"max_tokens"`
	MaxCompletionTokens int    `json:"max_completion_tokens"`
	ReasoningEffort     string `json:"reasoning_effort"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// contentText flattens a message content: a string, or text parts.
func contentText(raw json.RawMessage) (string, bool) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String(), true
	}
	return t, true
}

func record(r *http.Request, body []byte) RecordedRequest {
	rec := RecordedRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Wire: "chat"}
	if strings.HasSuffix(r.URL.Path, "/responses") {
		rec.Wire = "responses"
		recordResponses(&rec, body)
		return rec
	}
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		rec.DecodeError = err.Error()
		return rec
	}
	rec.Model, rec.Stream = w.Model, w.Stream
	rec.MaxTokens, rec.MaxCompletionTokens = w.MaxTokens, w.MaxCompletionTokens
	rec.IncludeUsage = w.StreamOptions != nil && w.StreamOptions.IncludeUsage
	rec.ReasoningEffort, rec.ToolsField = w.ReasoningEffort, len(w.Tools) > 0
	for _, m := range w.Messages {
		rm := RecordedMessage{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID, ReasoningContent: m.ReasoningContent, Reasoning: m.Reasoning}
		rm.Content, rm.ContentPresent = contentText(m.Content)
		for _, tc := range m.ToolCalls {
			rm.ToolCalls = append(rm.ToolCalls, RecordedToolCall{ID: tc.ID, Type: tc.Type, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		rec.Messages = append(rec.Messages, rm)
	}
	var tools []wireTool
	if err := json.Unmarshal(w.Tools, &tools); len(w.Tools) > 0 && err != nil {
		rec.DecodeError = "tools: " + err.Error()
		return rec
	}
	for _, t := range tools {
		rec.Tools = append(rec.Tools, RecordedTool{Type: t.Type, Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return rec
}
