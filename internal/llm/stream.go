package llm

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// streamChunk is one SSE data payload. It is decoded here rather than through
// go-openai's ChatCompletionStreamResponse so that provider extensions
// (reasoning, cache-creation usage) survive and malformed chunks get a clear
// error.
type streamChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string            `json:"content"`
			ReasoningContent string            `json:"reasoning_content"`
			Reasoning        string            `json:"reasoning"` // OpenRouter and some local servers
			ToolCalls        []openai.ToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason openai.FinishReason `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

// wireUsage is the usage object of a chunk or a response, with the cache
// fields of the providers that report them.
type wireUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens        int64 `json:"cached_tokens"`
		CacheCreationTokens int64 `json:"cache_creation_tokens"`
	} `json:"prompt_tokens_details"`
	// Anthropic-style fields, sent by some OpenAI-compatible gateways.
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

func (u *wireUsage) toUsage() Usage {
	if u == nil {
		return Usage{}
	}
	out := Usage{
		InputTokens:         u.PromptTokens,
		OutputTokens:        u.CompletionTokens,
		CacheReadTokens:     u.CacheReadInputTokens,
		CacheCreationTokens: u.CacheCreationInputTokens,
		Present:             true,
	}
	if d := u.PromptTokensDetails; d != nil {
		if d.CachedTokens > 0 {
			out.CacheReadTokens = d.CachedTokens
		}
		if d.CacheCreationTokens > 0 {
			out.CacheCreationTokens = d.CacheCreationTokens
		}
	}
	return out
}

// assembler accumulates stream deltas into one assistant message.
type assembler struct {
	content   strings.Builder
	reasoning strings.Builder
	calls     map[int]*callBuilder
	lastIndex int // index of the most recent tool-call delta, for deltas without one
	finish    string
	usage     *wireUsage
	chunks    int  // data events decoded
	choices   bool // some chunk carried a choice
}

type callBuilder struct {
	id, name string
	args     strings.Builder
}

// add folds one decoded chunk in. It reports whether the chunk carried a
// token (content, reasoning or a tool-call delta), for time-to-first-token.
func (a *assembler) add(c *streamChunk) (token bool) {
	a.chunks++
	if c.Usage != nil {
		a.usage = c.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 { // odek never asks for n > 1
			continue
		}
		a.choices = true
		d := &ch.Delta
		if d.Content != "" {
			a.content.WriteString(d.Content)
			token = true
		}
		if r := d.ReasoningContent + d.Reasoning; r != "" {
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
	return token
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

// message returns the assembled assistant message. Tool calls are ordered by
// index; a call without an id gets "call_<index>".
func (a *assembler) message() Message {
	m := Message{
		Role:             RoleAssistant,
		Content:          a.content.String(),
		ReasoningContent: a.reasoning.String(),
	}
	if len(a.calls) > 0 {
		idx := make([]int, 0, len(a.calls))
		for k := range a.calls {
			idx = append(idx, k)
		}
		sort.Ints(idx)
		m.ToolCalls = make([]ToolCall, 0, len(idx))
		for _, k := range idx {
			b := a.calls[k]
			id := b.id
			if id == "" {
				id = "call_" + strconv.Itoa(k)
			}
			m.ToolCalls = append(m.ToolCalls, ToolCall{
				ID:       id,
				Type:     string(openai.ToolTypeFunction),
				Function: FunctionCall{Name: b.name, Arguments: b.args.String()},
			})
		}
	}
	return m
}

// decodeChunk decodes one SSE data payload.
func decodeChunk(raw []byte, c *streamChunk) error {
	*c = streamChunk{}
	return json.Unmarshal(raw, c)
}
