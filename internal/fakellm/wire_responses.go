package fakellm

import (
	"encoding/json"
	"fmt"
	"time"
)

// The Responses API replies, shaped as OpenAI documents them and as Ollama's
// /v1/responses writes them (testdata/responses holds both): a reasoning
// item (summary text, and encrypted_content), a message item with one
// output_text part, a function_call item per call; usage with
// input_tokens_details.cached_tokens; status incomplete with
// incomplete_details.reason for a cut reply.

type respUsageJSON struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int      `json:"total_tokens"`
	Cost        *float64 `json:"cost,omitempty"`
}

func respUsage(u *usageJSON) *respUsageJSON {
	if u == nil {
		return nil
	}
	r := &respUsageJSON{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens, Cost: u.Cost}
	if u.PromptTokensDetails != nil {
		r.InputTokensDetails.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	return r
}

type summaryJSON struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type outTextJSON struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

// itemJSON is one output item; the fields of each type only.
type itemJSON struct {
	ID               string         `json:"id"`
	Type             string         `json:"type"`
	Status           string         `json:"status,omitempty"`
	Role             string         `json:"role,omitempty"`
	Content          *[]outTextJSON `json:"content,omitempty"`
	Summary          *[]summaryJSON `json:"summary,omitempty"`
	EncryptedContent *string        `json:"encrypted_content,omitempty"`
	CallID           string         `json:"call_id,omitempty"`
	Name             string         `json:"name,omitempty"`
	Arguments        *string        `json:"arguments,omitempty"`
}

// respReasoning is the turn's reasoning text (both names joined).
func respReasoning(t *Turn) string { return t.ReasoningContent + t.Reasoning }

// outputItems are the turn's finished output items.
func outputItems(t *Turn, n int) []itemJSON {
	var out []itemJSON
	if r := respReasoning(t); r != "" {
		enc := t.EncryptedContent
		if enc == "" {
			enc = r
		}
		out = append(out, itemJSON{ID: fmt.Sprintf("rs_fake_%d", n), Type: "reasoning",
			Summary: &[]summaryJSON{{Type: "summary_text", Text: r}}, EncryptedContent: &enc})
	}
	if t.Content != "" || len(t.ToolCalls) == 0 {
		out = append(out, itemJSON{ID: fmt.Sprintf("msg_fake_%d", n), Type: "message", Status: "completed", Role: "assistant",
			Content: &[]outTextJSON{{Type: "output_text", Text: t.Content, Annotations: []any{}}}})
	}
	for i, c := range t.ToolCalls {
		args := c.ArgumentsText()
		out = append(out, itemJSON{ID: fmt.Sprintf("fc_fake_%d_%d", n, i+1), Type: "function_call", Status: "completed",
			CallID: t.callID(n, i), Name: c.Name, Arguments: &args})
	}
	return out
}

// respStatus is the response's status and incomplete_details for the turn's
// finish reason.
func respStatus(t *Turn) (string, any) {
	switch finishReason(t) {
	case "length":
		return "incomplete", map[string]string{"reason": "max_output_tokens"}
	case "content_filter":
		return "incomplete", map[string]string{"reason": "content_filter"}
	}
	return "completed", nil
}

// responseObject is the response object: whole when done, in_progress (no
// output, no usage) at the start of a stream.
func responseObject(t *Turn, n int, model string, u *usageJSON, now time.Time, done bool) map[string]any {
	r := map[string]any{
		"id": fmt.Sprintf("resp_fake_%d", n), "object": "response", "created_at": now.Unix(),
		"model": model, "status": "in_progress", "error": nil, "incomplete_details": nil, "output": []any{},
	}
	if done {
		r["status"], r["incomplete_details"] = respStatus(t)
		r["output"] = outputItems(t, n)
		if ru := respUsage(u); ru != nil {
			r["usage"] = ru
		}
	}
	return r
}

func responseBody(t *Turn, n int, model string, u *usageJSON, now time.Time) []byte {
	b, _ := json.Marshal(responseObject(t, n, model, u, now, true))
	return b
}

// respEvent is one SSE event: its type, and its data with type and
// sequence_number set.
type respEvent struct {
	typ  string
	data []byte
}

// responseEvents renders a turn as a Responses event stream: created and
// in_progress, then per output item its added event, its deltas in
// chunk_size pieces and its done events, then completed (or incomplete).
func responseEvents(t *Turn, n int, model string, u *usageJSON, now time.Time) []respEvent {
	size := t.ChunkSize
	if size <= 0 {
		size = DefaultChunkSize
	}
	var out []respEvent
	emit := func(typ string, data map[string]any) {
		data["type"], data["sequence_number"] = typ, len(out)
		b, _ := json.Marshal(data)
		out = append(out, respEvent{typ: typ, data: b})
	}
	emit("response.created", map[string]any{"response": responseObject(t, n, model, nil, now, false)})
	emit("response.in_progress", map[string]any{"response": responseObject(t, n, model, nil, now, false)})
	for i, it := range outputItems(t, n) {
		added := it
		switch it.Type {
		case "reasoning":
			added.Summary, added.EncryptedContent = &[]summaryJSON{}, nil
			emit("response.output_item.added", map[string]any{"output_index": i, "item": added})
			text := (*it.Summary)[0].Text
			for _, p := range split(text, size) {
				emit("response.reasoning_summary_text.delta", map[string]any{"item_id": it.ID, "output_index": i, "summary_index": 0, "delta": p})
			}
			emit("response.reasoning_summary_text.done", map[string]any{"item_id": it.ID, "output_index": i, "summary_index": 0, "text": text})
		case "message":
			added.Status, added.Content = "in_progress", &[]outTextJSON{}
			emit("response.output_item.added", map[string]any{"output_index": i, "item": added})
			part := outTextJSON{Type: "output_text", Annotations: []any{}}
			emit("response.content_part.added", map[string]any{"item_id": it.ID, "output_index": i, "content_index": 0, "part": part})
			text := (*it.Content)[0].Text
			for _, p := range split(text, size) {
				emit("response.output_text.delta", map[string]any{"item_id": it.ID, "output_index": i, "content_index": 0, "delta": p})
			}
			emit("response.output_text.done", map[string]any{"item_id": it.ID, "output_index": i, "content_index": 0, "text": text})
			part.Text = text
			emit("response.content_part.done", map[string]any{"item_id": it.ID, "output_index": i, "content_index": 0, "part": part})
		case "function_call":
			empty := ""
			added.Status, added.Arguments = "in_progress", &empty
			emit("response.output_item.added", map[string]any{"output_index": i, "item": added})
			if !t.WholeCalls {
				for _, p := range split(*it.Arguments, size) {
					emit("response.function_call_arguments.delta", map[string]any{"item_id": it.ID, "output_index": i, "delta": p})
				}
			}
			emit("response.function_call_arguments.done", map[string]any{"item_id": it.ID, "output_index": i, "arguments": *it.Arguments})
		}
		emit("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	end := "response.completed"
	if status, _ := respStatus(t); status == "incomplete" {
		end = "response.incomplete"
	}
	emit(end, map[string]any{"response": responseObject(t, n, model, u, now, true)})
	return out
}
