package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// responsesRequest is the part of a Responses request the server reads.
type responsesRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        json.RawMessage   `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
	Stream       bool              `json:"stream"`
	MaxOutput    int               `json:"max_output_tokens"`
	Reasoning    *struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
	Include        []string `json:"include"`
	Store          *bool    `json:"store"`
	PromptCacheKey string   `json:"prompt_cache_key"`
	Text           *struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
}

// responsesItem is one input item, of any type.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// responsesTool is a Responses function tool: its fields at the top level.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// recordResponses parses a Responses request body into rec.
func recordResponses(rec *RecordedRequest, body []byte) {
	var w responsesRequest
	if err := json.Unmarshal(body, &w); err != nil {
		rec.DecodeError = err.Error()
		return
	}
	rec.Model, rec.Stream, rec.IncludeUsage, rec.MaxTokens = w.Model, w.Stream, true, w.MaxOutput
	rec.Instructions, rec.Include, rec.Store, rec.PromptCacheKey = w.Instructions, w.Include, w.Store, w.PromptCacheKey
	if w.Reasoning != nil {
		rec.ReasoningEffort = w.Reasoning.Effort
	}
	if w.Text != nil {
		rec.TextFormat = w.Text.Format
	}
	rec.ToolsField = len(w.Tools) > 0
	for _, raw := range w.Tools {
		var t responsesTool
		if err := json.Unmarshal(raw, &t); err != nil {
			rec.DecodeError = "tools: " + err.Error()
			return
		}
		rec.Tools = append(rec.Tools, RecordedTool(t))
	}
	if w.Instructions != "" {
		rec.Messages = append(rec.Messages, RecordedMessage{Role: "system", Content: w.Instructions, ContentPresent: true})
	}
	if err := recordItems(rec, w.Input); err != nil {
		rec.DecodeError = "input: " + err.Error()
	}
}

// recordItems folds the input items into rec.Messages.
func recordItems(rec *RecordedRequest, input json.RawMessage) error {
	var s string
	if json.Unmarshal(input, &s) == nil {
		rec.Messages = append(rec.Messages, RecordedMessage{Role: "user", Content: s, ContentPresent: true})
		return nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(input, &raws); err != nil {
		return err
	}
	var reasoning []json.RawMessage // items waiting for the assistant message they precede
	assistant := func() *RecordedMessage {
		if k := len(rec.Messages); k > 0 && rec.Messages[k-1].Role == "assistant" && len(reasoning) == 0 {
			return &rec.Messages[k-1]
		}
		rec.Messages = append(rec.Messages, RecordedMessage{Role: "assistant", ReasoningItems: reasoning})
		reasoning = nil
		return &rec.Messages[len(rec.Messages)-1]
	}
	for i, raw := range raws {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return err
		}
		rec.Input = append(rec.Input, buf.Bytes())
		var it responsesItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
		switch it.Type {
		case "reasoning":
			reasoning = append(reasoning, buf.Bytes())
		case "function_call":
			m := assistant()
			m.ToolCalls = append(m.ToolCalls, RecordedToolCall{ID: it.CallID, Type: "function", Name: it.Name, Arguments: it.Arguments})
		case "function_call_output":
			text, present := contentText(it.Output)
			rec.Messages = append(rec.Messages, RecordedMessage{Role: "tool", ToolCallID: it.CallID, Content: text, ContentPresent: present})
		case "message", "":
			text, present := contentText(it.Content)
			if it.Role == "assistant" {
				m := assistant()
				m.Content, m.ContentPresent = m.Content+text, present
				continue
			}
			rec.Messages = append(rec.Messages, RecordedMessage{Role: it.Role, Content: text, ContentPresent: present})
		default:
			return fmt.Errorf("item %d: unknown input item type %q", i, it.Type)
		}
	}
	if len(reasoning) > 0 {
		return fmt.Errorf("a reasoning item without the item that followed it")
	}
	return nil
}
