package llm

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// EmptyContentPlaceholder is sent instead of an empty content string.
//
// go-openai marshals Content with omitempty, so a message with "" would go out
// with no content field at all, which the OpenAI API rejects for tool, user and
// system messages ("content is required"). Such messages are sent with this
// placeholder instead. An assistant message that carries tool calls is sent
// without content, which the API accepts.
const EmptyContentPlaceholder = "(empty)"

// defaultParameters is sent for a tool without a schema: the API requires an
// object schema.
var defaultParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// toOpenAI maps an odek Request to go-openai's wire request.
func toOpenAI(req Request, stream bool) (openai.ChatCompletionRequest, error) {
	out := openai.ChatCompletionRequest{
		Model:    req.Model,
		Messages: make([]openai.ChatCompletionMessage, 0, len(req.Messages)),
		Stream:   stream,
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
	for i, m := range req.Messages {
		om := openai.ChatCompletionMessage{
			Role:             m.Role,
			Content:          m.Content,
			Name:             m.Name,
			ToolCallID:       m.ToolCallID,
			ReasoningContent: m.ReasoningContent,
		}
		for j, tc := range m.ToolCalls {
			if tc.Function.Name == "" {
				return out, fmt.Errorf("message %d: tool call %d has no function name", i, j)
			}
			typ := openai.ToolType(tc.Type)
			if typ == "" {
				typ = openai.ToolTypeFunction
			}
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:   tc.ID,
				Type: typ,
				Function: openai.FunctionCall{
					Name:      tc.Function.Name,
					Arguments: tc.Function.Arguments,
				},
			})
		}
		if om.Content == "" && len(om.ToolCalls) == 0 {
			om.Content = EmptyContentPlaceholder
		}
		out.Messages = append(out.Messages, om)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(strings.TrimSpace(string(params))) == 0 || strings.TrimSpace(string(params)) == "null" {
			params = defaultParameters
		} else if !json.Valid(params) {
			return out, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
		}
		out.Tools = append(out.Tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	return out, nil
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

// fromOpenAIToolCalls maps wire tool calls to odek's.
func fromOpenAIToolCalls(in []openai.ToolCall) []ToolCall {
	if len(in) == 0 {
		return nil
	}
	out := make([]ToolCall, 0, len(in))
	for i, tc := range in {
		id := tc.ID
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		out = append(out, ToolCall{
			ID:       id,
			Type:     string(openai.ToolTypeFunction),
			Function: FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
		})
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
