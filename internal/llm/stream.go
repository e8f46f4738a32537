package llm

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// droppedChunk holds the stream-chunk fields that go-openai's
// ChatCompletionStreamResponse has no place for. Only these are decoded by
// hand, and only from a chunk that mentions them:
//   - choices[].delta.reasoning: the name Ollama, OpenRouter and vLLM give
//     what DeepSeek and go-openai call reasoning_content;
//   - usage's cache fields (see droppedUsage).
type droppedChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Reasoning string `json:"reasoning"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *droppedUsage `json:"usage"`
}

// droppedResponse is the same for a non-streaming body, where the reasoning
// sits in choices[].message.reasoning, plus the presence of usage (go-openai's
// Usage is a value, so an absent usage and a zero one look alike).
type droppedResponse struct {
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Reasoning string `json:"reasoning"`
		} `json:"message"`
	} `json:"choices"`
	Usage *droppedUsage `json:"usage"`
}

// droppedUsage holds the usage fields go-openai's Usage drops: cache-creation
// tokens (prompt_tokens_details.cache_creation_tokens), and the
// Anthropic-style cache fields some OpenAI-compatible gateways send.
type droppedUsage struct {
	PromptTokensDetails *struct {
		CacheCreationTokens int64 `json:"cache_creation_tokens"`
	} `json:"prompt_tokens_details"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// mentionsDropped reports whether a raw chunk may carry a dropped field.
func mentionsDropped(raw []byte) bool {
	return bytes.Contains(raw, []byte(`"reasoning"`)) || bytes.Contains(raw, []byte(`cache_`))
}

// usageOf combines go-openai's usage with the dropped cache fields.
func usageOf(u *openai.Usage, x *droppedUsage) Usage {
	if u == nil {
		return Usage{}
	}
	out := Usage{InputTokens: int64(u.PromptTokens), OutputTokens: int64(u.CompletionTokens), Present: true}
	if d := u.PromptTokensDetails; d != nil {
		out.CacheReadTokens = int64(d.CachedTokens)
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = int64(d.ReasoningTokens)
	}
	if x != nil {
		if out.CacheReadTokens == 0 {
			out.CacheReadTokens = x.CacheReadInputTokens
		}
		out.CacheCreationTokens = x.CacheCreationInputTokens
		if d := x.PromptTokensDetails; d != nil && d.CacheCreationTokens > 0 {
			out.CacheCreationTokens = d.CacheCreationTokens
		}
	}
	return out
}

// assembler accumulates stream chunks into one assistant message.
type assembler struct {
	content   strings.Builder
	reasoning strings.Builder
	calls     map[int]*callBuilder
	lastIndex int // index of the most recent tool-call delta, for deltas without one
	finish    string
	usage     *openai.Usage
	dropped   *droppedUsage
	chunks    int  // data events decoded
	choices   bool // some chunk carried a choice
}

type callBuilder struct {
	id, name string
	args     strings.Builder
}

// add decodes one raw chunk and folds it in. It reports whether the chunk
// carried a token (text, reasoning or a tool-call piece).
func (a *assembler) add(raw []byte) (token bool, err error) {
	var c openai.ChatCompletionStreamResponse
	if err := json.Unmarshal(raw, &c); err != nil {
		return false, err
	}
	var x droppedChunk
	if mentionsDropped(raw) {
		if err := json.Unmarshal(raw, &x); err != nil {
			return false, err
		}
	}
	a.chunks++
	if c.Usage != nil {
		a.usage, a.dropped = c.Usage, x.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 { // odek never asks for n > 1
			continue
		}
		a.choices = true
		d := &ch.Delta
		// A refusal is the model's answer in OpenAI's own field.
		if text := d.Content + d.Refusal; text != "" {
			a.content.WriteString(text)
			token = true
		}
		r := d.ReasoningContent
		if i < len(x.Choices) && x.Choices[i].Index == 0 {
			r += x.Choices[i].Delta.Reasoning
		}
		if r != "" {
			a.reasoning.WriteString(r)
			token = true
		}
		for _, tc := range d.ToolCalls {
			a.addToolCall(tc)
			token = true
		}
		if ch.FinishReason != "" && ch.FinishReason != openai.FinishReasonNull {
			a.finish = string(ch.FinishReason)
		}
	}
	return token, nil
}

func (a *assembler) addToolCall(tc openai.ToolCall) {
	if a.calls == nil {
		a.calls = make(map[int]*callBuilder)
	}
	idx := a.lastIndex
	switch {
	case tc.Index != nil:
		idx = *tc.Index
	case len(a.calls) == 0:
		idx = 0
	case tc.ID != "" && a.calls[idx] != nil && a.calls[idx].id != "" && a.calls[idx].id != tc.ID:
		// No index: a new id starts a new call (providers that send whole calls).
		idx = a.maxIndex() + 1
	}
	a.lastIndex = idx
	b := a.calls[idx]
	if b == nil {
		b = &callBuilder{}
		a.calls[idx] = b
	}
	if tc.ID != "" {
		b.id = tc.ID
	}
	switch n := tc.Function.Name; {
	case n == "" || n == b.name:
		// absent, or repeated in every delta by some servers
	case b.name == "":
		b.name = n
	default:
		b.name += n // split across deltas
	}
	b.args.WriteString(tc.Function.Arguments)
}

func (a *assembler) maxIndex() int {
	m := 0
	first := true
	for k := range a.calls {
		if first || k > m {
			m, first = k, false
		}
	}
	return m
}

// message returns the assembled assistant message, tool calls ordered by
// index. A call without an id keeps it empty: the loop gives it one that is
// unique in the run.
func (a *assembler) message() Message {
	m := Message{Role: RoleAssistant, Content: a.content.String(), ReasoningContent: a.reasoning.String()}
	if len(a.calls) == 0 {
		return m
	}
	idx := make([]int, 0, len(a.calls))
	for k := range a.calls {
		idx = append(idx, k)
	}
	sort.Ints(idx)
	m.ToolCalls = make([]ToolCall, 0, len(idx))
	for _, k := range idx {
		b := a.calls[k]
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: b.id, Type: string(openai.ToolTypeFunction),
			Function: FunctionCall{Name: b.name, Arguments: b.args.String()}})
	}
	return m
}
