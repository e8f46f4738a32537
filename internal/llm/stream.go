package llm

import (
	"sort"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// assembler accumulates stream chunks into one assistant message.
type assembler struct {
	content   strings.Builder
	reasoning strings.Builder
	calls     map[int]*callBuilder
	lastIndex int // index of the most recent tool-call delta, for deltas without one
	finish    string
	model     string // the first model a chunk named
	usage     *wireUsage
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
	c, err := decodeChunk(raw)
	if err != nil {
		return false, err
	}
	a.chunks++
	if a.model == "" {
		a.model = c.Model
	}
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
		// A refusal is the model's answer in OpenAI's own field.
		if text := d.Content + d.Refusal; text != "" {
			a.content.WriteString(text)
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
