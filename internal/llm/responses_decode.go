package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Responses decoding. go-openai's ResponseStreamEvent cannot be extended by
// embedding, as decode.go extends the chat chunk: its UnmarshalJSON would
// decode the whole event into the embedded part alone. So a stream event is
// decoded once into respEvent, made of go-openai's own field types, with
// what those drop decoded beside them by hand:
//   - an output item's raw JSON (item, response.output): go-openai's
//     ResponseOutputItem drops a reasoning item's encrypted_content, which
//     must go back byte for byte, and its CreateResponseResponse keeps the
//     output as []any;
//   - usage.cost, the price OpenRouter reports for a call.
//
// Everything else (status, incomplete_details, error, usage, and each item's
// type, call id, name, arguments, text and summary) is go-openai's.

// respEvent is one Responses stream event.
type respEvent struct {
	Type openai.ResponseStreamEventType `json:"type"`
	// Response is decoded (into respBody) only for the events that end a
	// reply; created and in_progress carry one too, not needed.
	Response    json.RawMessage       `json:"response"`
	Item        json.RawMessage       `json:"item"`
	ItemID      string                `json:"item_id"`
	OutputIndex int                   `json:"output_index"`
	Delta       string                `json:"delta"`
	Arguments   *string               `json:"arguments"`
	Code        any                   `json:"code"`
	Message     string                `json:"message"`
	Error       *openai.ResponseError `json:"error"`
}

// respBody is the response object of response.completed, .incomplete and
// .failed events, and of a non-streaming reply.
type respBody struct {
	Status            openai.ResponseStatus             `json:"status"`
	Error             *openai.ResponseError             `json:"error"`
	IncompleteDetails *openai.ResponseIncompleteDetails `json:"incomplete_details"`
	Output            []json.RawMessage                 `json:"output"`
	Usage             *respUsage                        `json:"usage"`
	Model             string                            `json:"model"`
}

// respUsage is go-openai's ResponseUsage with usage.cost.
type respUsage struct {
	openai.ResponseUsage
	Cost *float64 `json:"cost"`
}

// respAssembler folds a Responses reply, streamed or whole, into one
// assistant message.
type respAssembler struct {
	text, reasoning strings.Builder
	textDeltas      bool // some text came as deltas (a done item's text is then not added again)
	reasoningDeltas bool
	calls           []*respCall
	items           []json.RawMessage // reasoning items, compacted
	seen            int               // output items finished
	events          int
	status          openai.ResponseStatus
	incomplete      string
	usage           *respUsage
	model           string
	ended           bool
}

type respCall struct {
	itemID, callID, name string
	args                 strings.Builder
}

// add decodes one stream event and folds it in; token reports a piece of
// text, reasoning or arguments. Unknown event types are skipped.
func (a *respAssembler) add(raw []byte) (token bool, err error) {
	var e respEvent
	if err := json.Unmarshal(raw, &e); err != nil {
		return false, err
	}
	a.events++
	switch e.Type {
	case openai.ResponseStreamEventOutputTextDelta, openai.ResponseStreamEventRefusalDelta:
		a.text.WriteString(e.Delta)
		a.textDeltas = true
		return e.Delta != "", nil
	case openai.ResponseStreamEventReasoningSummaryTextDelta, openai.ResponseStreamEventReasoningTextDelta:
		a.reasoning.WriteString(e.Delta)
		a.reasoningDeltas = true
		return e.Delta != "", nil
	case openai.ResponseStreamEventFunctionArgumentsDelta:
		a.call(e.ItemID, e.OutputIndex).args.WriteString(e.Delta)
		return e.Delta != "", nil
	case openai.ResponseStreamEventFunctionArgumentsDone:
		if e.Arguments != nil {
			c := a.call(e.ItemID, e.OutputIndex)
			c.args.Reset()
			c.args.WriteString(*e.Arguments)
		}
	case openai.ResponseStreamEventOutputItemAdded:
		var it openai.ResponseOutputItem
		if bytes.Contains(e.Item, []byte(`"function_call"`)) && json.Unmarshal(e.Item, &it) == nil && it.Type == "function_call" {
			c := a.call(it.ID, e.OutputIndex)
			c.callID, c.name = it.CallID, it.Name
		}
	case openai.ResponseStreamEventOutputItemDone:
		return false, a.itemDone(e.Item, e.OutputIndex)
	case openai.ResponseStreamEventCompleted, openai.ResponseStreamEventIncomplete, openai.ResponseStreamEventFailed:
		var r respBody
		if len(e.Response) == 0 || json.Unmarshal(e.Response, &r) != nil {
			return false, errors.New("response event without a response object")
		}
		if e.Type == openai.ResponseStreamEventFailed {
			r.Status = openai.ResponseStatusFailed
		}
		return false, a.end(&r)
	case openai.ResponseStreamEventError:
		msg, code := e.Message, codeText(e.Code)
		if e.Error != nil && msg == "" {
			msg, code = e.Error.Message, e.Error.Code
		}
		return false, providerError(msg, code)
	}
	return false, nil
}

// call finds the function call of an item (by id, else by output index),
// creating it when it is new.
func (a *respAssembler) call(itemID string, index int) *respCall {
	if itemID == "" {
		itemID = "#" + strconv.Itoa(index)
	}
	for _, c := range a.calls {
		if c.itemID == itemID {
			return c
		}
	}
	c := &respCall{itemID: itemID}
	a.calls = append(a.calls, c)
	return c
}

// itemDone folds in a finished output item: a reasoning item is kept as
// sent; a call's fields and a message's text, when no deltas carried them,
// come from the item.
func (a *respAssembler) itemDone(raw json.RawMessage, index int) error {
	var it openai.ResponseOutputItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return err
	}
	a.seen++
	switch it.Type {
	case "reasoning":
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return err
		}
		a.items = append(a.items, buf.Bytes())
		if !a.reasoningDeltas {
			for _, p := range it.Summary {
				a.reasoning.WriteString(p.Text)
			}
			for _, p := range it.Content {
				a.reasoning.WriteString(p.Text)
			}
		}
	case "message":
		if !a.textDeltas {
			for _, p := range it.Content {
				a.text.WriteString(p.Text + p.Refusal)
			}
		}
	case "function_call":
		c := a.call(it.ID, index)
		if it.CallID != "" {
			c.callID = it.CallID
		}
		if it.Name != "" {
			c.name = it.Name
		}
		if it.Arguments != "" || c.args.Len() == 0 {
			c.args.Reset()
			c.args.WriteString(it.Arguments)
		}
	}
	return nil
}

// end folds in the final response object: its status and usage, and its
// output when no item came as an event of its own.
func (a *respAssembler) end(r *respBody) error {
	a.ended = true
	a.status, a.usage, a.model = r.Status, r.Usage, r.Model
	if r.IncompleteDetails != nil {
		a.incomplete = r.IncompleteDetails.Reason
	}
	if r.Status == openai.ResponseStatusFailed {
		if r.Error != nil {
			return providerError(r.Error.Message, r.Error.Code)
		}
		return providerError("response failed", "")
	}
	if a.seen == 0 {
		for i, it := range r.Output {
			if err := a.itemDone(it, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// finish maps the response's status to a chat finish_reason, so both wires
// give the loop the same answer contract.
func (a *respAssembler) finish() string {
	if a.status == openai.ResponseStatusIncomplete {
		if a.incomplete == "content_filter" {
			return string(openai.FinishReasonContentFilter)
		}
		return string(openai.FinishReasonLength) // max_output_tokens, or any other cut
	}
	if len(a.calls) > 0 {
		return string(openai.FinishReasonToolCalls)
	}
	return string(openai.FinishReasonStop)
}

// message is the assembled assistant message.
func (a *respAssembler) message() Message {
	m := Message{Role: RoleAssistant, Content: a.text.String(), ReasoningContent: a.reasoning.String(), ReasoningItems: a.items}
	for _, c := range a.calls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.callID, Type: string(openai.ToolTypeFunction),
			Function: FunctionCall{Name: c.name, Arguments: c.args.String()}})
	}
	return m
}

// respUsageOf maps a Responses usage: input_tokens counts the cached tokens
// too (as prompt_tokens does on the chat wire), so they are taken out.
func respUsageOf(u *respUsage) Usage {
	if u == nil {
		return Usage{}
	}
	out := Usage{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens), Present: true}
	if d := u.InputTokensDetails; d != nil {
		out.CacheReadTokens = int64(d.CachedTokens)
		out.CacheCreationTokens = int64(d.CacheWriteTokens)
	}
	if d := u.OutputTokensDetails; d != nil {
		out.ReasoningTokens = int64(d.ReasoningTokens)
	}
	if u.Cost != nil && *u.Cost >= 0 {
		out.CostUSD, out.CostReported = *u.Cost, true
	}
	if cached := out.CacheReadTokens + out.CacheCreationTokens; cached > 0 && cached <= out.InputTokens {
		out.InputTokens -= cached
	}
	return out
}
