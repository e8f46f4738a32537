package llm

import (
	"encoding/json"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// EmptyContentPlaceholder is sent instead of an empty content string on the
// messages the API requires content on.
//
// The API accepts "content": "" on every message and no content on an
// assistant message with tool calls. go-openai (v1.43.0) marshals Content
// with omitempty (its PR #926; issue #1029 asks to revert it), so "" cannot
// be sent at all, and a message without content is refused on tool and user
// messages (OpenAI: "content is required"; Ollama: "invalid message content
// type: <nil>"). So: an assistant message with tool calls goes without
// content, as the API allows; an empty system message and an empty assistant
// message without tool calls carry nothing and are left out of the request;
// an empty tool result or user message is sent as this placeholder.
const EmptyContentPlaceholder = "(empty)"

// defaultParameters is sent for a tool without a schema: the API requires an
// object schema.
var defaultParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// toOpenAI builds go-openai's request for req.
//
// Reasoning goes back to the provider by one rule: only on an assistant
// message that carries tool calls (the turn is still running, and DeepSeek's
// thinking mode requires the reasoning of its tool-call turns back), and
// only as reasoning_content, the one name go-openai's message type has.
// Servers that name it "reasoning" (Ollama) ignore the field; a final
// answer's reasoning is never sent back.
func toOpenAI(req Request, stream bool) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{
		Model:           req.Model,
		Messages:        make([]openai.ChatCompletionMessage, 0, len(req.Messages)),
		Stream:          stream,
		ReasoningEffort: req.ReasoningEffort,
	}
	if stream {
		out.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	out.ResponseFormat = responseFormat(req.ResponseFormat)
	if req.MaxTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens (and go-openai rejects it
		// before sending); they take max_completion_tokens instead.
		if usesMaxCompletionTokens(req.Model) {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			//lint:ignore SA1019 max_tokens is what OpenAI-compatible servers (vLLM, llama.cpp, Ollama, ...) accept.
			out.MaxTokens = req.MaxTokens
		}
	}
	for i := range req.Messages {
		if m := &req.Messages[i]; !carriesNothing(m) {
			out.Messages = append(out.Messages, toOpenAIMessage(m))
		}
	}
	if len(req.Tools) > 0 { // no tools: no "tools" field, for models without tool support
		out.Tools = make([]openai.Tool, len(req.Tools))
		for i, t := range req.Tools {
			params := t.Parameters
			if s := strings.TrimSpace(string(params)); s == "" || s == "null" {
				params = defaultParameters
			}
			out.Tools[i] = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
				Name: t.Name, Description: t.Description, Parameters: params,
			}}
		}
	}
	return out
}

func toOpenAIMessage(m *Message) openai.ChatCompletionMessage {
	om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, Name: m.Name, ToolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 {
		om.ReasoningContent = m.ReasoningContent
		om.ToolCalls = make([]openai.ToolCall, len(m.ToolCalls))
		for j, tc := range m.ToolCalls {
			typ := openai.ToolType(tc.Type)
			if typ == "" {
				typ = openai.ToolTypeFunction
			}
			om.ToolCalls[j] = openai.ToolCall{ID: tc.ID, Type: typ,
				Function: openai.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}}
		}
	} else if om.Content == "" {
		om.Content = EmptyContentPlaceholder
	}
	return om
}

// carriesNothing reports a message the request can leave out: an empty
// system message, or an empty assistant message without tool calls.
func carriesNothing(m *Message) bool {
	return m.Content == "" && len(m.ToolCalls) == 0 && (m.Role == RoleSystem || m.Role == RoleAssistant)
}

// invalidToolSchema names the first tool whose parameters are not JSON, to
// explain a request go-openai could not marshal.
func invalidToolSchema(tools []ToolSpec) string {
	for _, t := range tools {
		if s := strings.TrimSpace(string(t.Parameters)); s != "" && s != "null" && !json.Valid(t.Parameters) {
			return t.Name
		}
	}
	return ""
}

// usesMaxCompletionTokens reports whether model is one of OpenAI's reasoning
// families (o1, o3, o4, gpt-5 and later), which take max_completion_tokens.
func usesMaxCompletionTokens(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 { // e.g. "openai/gpt-5" on a router
		m = m[i+1:]
	}
	for _, p := range []string{"o1", "o3", "o4"} {
		if m == p || strings.HasPrefix(m, p+"-") {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(m, "gpt-"); ok {
		end := 0
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		if n, err := strconv.Atoi(rest[:end]); err == nil && n >= 5 {
			return true
		}
	}
	return false
}

// fromOpenAIToolCalls maps a non-streaming reply's tool calls. A call without
// an id keeps it empty: the loop gives it one that is unique in the run.
func fromOpenAIToolCalls(in []openai.ToolCall) []ToolCall {
	if len(in) == 0 {
		return nil
	}
	out := make([]ToolCall, len(in))
	for i, tc := range in {
		out[i] = ToolCall{ID: tc.ID, Type: string(openai.ToolTypeFunction),
			Function: FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}}
	}
	return out
}

// responseFormat is rf in go-openai's types; nil for nil.
func responseFormat(rf *ResponseFormat) *openai.ChatCompletionResponseFormat {
	if rf == nil {
		return nil
	}
	return &openai.ChatCompletionResponseFormat{
		Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
			Name: rf.Name, Schema: rf.Schema, Strict: rf.Strict,
		},
	}
}
