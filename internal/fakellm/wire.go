package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
	"unicode/utf8"
)

func drop(w http.ResponseWriter) {
	flush(w)
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			// A plain close (FIN) rather than a reset: the client reliably
			// reads the chunks already sent, then an unexpected EOF.
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // the server closes the connection
}

func flush(w http.ResponseWriter) {
	http.NewResponseController(w).Flush() //nolint:errcheck // best effort
}

func plain(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	io.WriteString(w, msg+"\n")
}

// apiError writes an OpenAI-style error body.
func apiError(w http.ResponseWriter, code int, msg, typ, errCode string) {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if errCode != "" {
		e["code"] = errCode
	}
	writeError(w, code, e)
}

// paramError is OpenAI's answer to a parameter the model does not support.
func paramError(w http.ResponseWriter, param string) {
	writeError(w, http.StatusBadRequest, map[string]any{
		"message": fmt.Sprintf("Unsupported parameter: '%s' is not supported with this model.", param),
		"type":    "invalid_request_error", "param": param, "code": "unsupported_parameter",
	})
}

// invalidParam is OpenAI's answer to a request one of whose values is
// malformed.
func invalidParam(w http.ResponseWriter, msg, param string) {
	writeError(w, http.StatusBadRequest, map[string]any{
		"message": msg, "type": "invalid_request_error", "param": param, "code": nil,
	})
}

// writeError writes {"error": e} with status code.
func writeError(w http.ResponseWriter, code int, e map[string]any) {
	b, _ := json.Marshal(map[string]any{"error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}

// rejectedParam is the first of params present at the top level of a JSON
// request body, or "".
func rejectedParam(body []byte, params []string) string {
	if len(params) == 0 {
		return ""
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return ""
	}
	for _, p := range params {
		if _, ok := top[p]; ok {
			return p
		}
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// --- response bodies ---

type usageJSON struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details,omitempty"`
	Cost *float64 `json:"cost,omitempty"` // OpenRouter's price of the call, in USD
}

// usageFor is the usage to report, nil when the turn opts out.
func usageFor(rec *RecordedRequest, t *Turn) *usageJSON {
	if t.NoUsage {
		return nil
	}
	var u usageJSON
	if t.Usage != nil {
		u.PromptTokens, u.CompletionTokens = t.Usage.PromptTokens, t.Usage.CompletionTokens
		if t.Usage.CachedTokens > 0 {
			u.PromptTokensDetails = &struct {
				CachedTokens int `json:"cached_tokens"`
			}{t.Usage.CachedTokens}
		}
		u.Cost = t.Usage.Cost
	} else {
		out := len(t.Content) + len(t.ReasoningContent) + len(t.Reasoning)
		for _, c := range t.ToolCalls {
			out += len(c.Name) + len(c.ArgumentsText())
		}
		u.PromptTokens = max(1, len(rec.Body)/4)
		u.CompletionTokens = max(1, out/4)
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return &u
}

func finishReason(t *Turn) string {
	switch {
	case t.FinishReason != "":
		return t.FinishReason
	case len(t.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

// callID is the id of the turn's call i: as scripted, else generated, or
// none with no_ids.
func (t *Turn) callID(turn, i int) string {
	switch c := t.ToolCalls[i]; {
	case t.NoIDs:
		return ""
	case c.ID != "":
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", turn, i+1)
}

type toolCallJSON struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func completionBody(t *Turn, n int, model string, u *usageJSON, now time.Time) []byte {
	msg := map[string]any{"role": "assistant", "content": nil}
	if t.Content != "" || len(t.ToolCalls) == 0 {
		msg["content"] = t.Content
	}
	if t.ReasoningContent != "" {
		msg["reasoning_content"] = t.ReasoningContent
	}
	if t.Reasoning != "" {
		msg["reasoning"] = t.Reasoning
	}
	if len(t.ToolCalls) > 0 {
		calls := make([]toolCallJSON, len(t.ToolCalls))
		for i, c := range t.ToolCalls {
			calls[i].ID, calls[i].Type = t.callID(n, i), "function"
			calls[i].Function.Name, calls[i].Function.Arguments = c.Name, c.ArgumentsText()
		}
		msg["tool_calls"] = calls
	}
	body := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake-%d", n),
		"object":  "chat.completion",
		"created": now.Unix(),
		"model":   model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(t), "logprobs": nil}},
	}
	if u != nil {
		body["usage"] = u
	}
	b, _ := json.Marshal(body)
	return b
}

type chunkJSON struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []choiceJSON `json:"choices"`
	Usage   *usageJSON   `json:"usage,omitempty"`
}

type choiceJSON struct {
	Index        int       `json:"index"`
	Delta        deltaJSON `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type deltaJSON struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	Reasoning        string         `json:"reasoning,omitempty"` // Ollama's name
	ToolCalls        []toolCallJSON `json:"tool_calls,omitempty"`
}

// streamEvents renders a turn as SSE data payloads (without "data: " and
// without [DONE]): a role chunk, reasoning and content chunks, tool-call
// chunks (id and name first, then the arguments in pieces), the finish chunk,
// and a usage chunk with empty choices when asked for and available.
func streamEvents(t *Turn, n int, model string, u *usageJSON, includeUsage bool, now time.Time) [][]byte {
	size := t.ChunkSize
	if size <= 0 {
		size = DefaultChunkSize
	}
	id := fmt.Sprintf("chatcmpl-fake-%d", n)
	var out [][]byte
	emit := func(d deltaJSON, finish *string) {
		c := chunkJSON{ID: id, Object: "chat.completion.chunk", Created: now.Unix(), Model: model,
			Choices: []choiceJSON{{Index: 0, Delta: d, FinishReason: finish}}}
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	empty := ""
	emit(deltaJSON{Role: "assistant", Content: &empty}, nil)
	for _, p := range split(t.ReasoningContent, size) {
		emit(deltaJSON{ReasoningContent: p}, nil)
	}
	for _, p := range split(t.Reasoning, size) {
		emit(deltaJSON{Reasoning: p}, nil)
	}
	for _, p := range split(t.Content, size) {
		emit(deltaJSON{Content: &p}, nil)
	}

	// Tool calls: per call, a header delta then argument pieces.
	type pending struct {
		idx    int
		pieces []string
	}
	var queue []pending
	for i, c := range t.ToolCalls {
		queue = append(queue, pending{idx: i, pieces: split(c.ArgumentsText(), size)})
	}
	argDelta := func(i int, header bool, piece string) {
		idx := i
		tc := toolCallJSON{Index: &idx}
		if header {
			c := t.ToolCalls[i]
			tc.ID, tc.Type = t.callID(n, i), "function"
			tc.Function.Name = c.Name
		}
		tc.Function.Arguments = piece
		emit(deltaJSON{ToolCalls: []toolCallJSON{tc}}, nil)
	}
	if t.WholeCalls {
		for i, c := range t.ToolCalls {
			idx := i
			tc := toolCallJSON{Index: &idx, ID: t.callID(n, i), Type: "function"}
			tc.Function.Name, tc.Function.Arguments = c.Name, c.ArgumentsText()
			emit(deltaJSON{ToolCalls: []toolCallJSON{tc}}, nil)
		}
		queue = nil
	}
	if t.Interleave {
		for _, p := range queue {
			argDelta(p.idx, true, "")
		}
		for more := true; more; {
			more = false
			for k := range queue {
				if len(queue[k].pieces) > 0 {
					argDelta(queue[k].idx, false, queue[k].pieces[0])
					queue[k].pieces = queue[k].pieces[1:]
					more = true
				}
			}
		}
	} else {
		for _, p := range queue {
			argDelta(p.idx, true, "")
			for _, piece := range p.pieces {
				argDelta(p.idx, false, piece)
			}
		}
	}

	fr := finishReason(t)
	emit(deltaJSON{}, &fr)
	if includeUsage && u != nil {
		c := chunkJSON{ID: id, Object: "chat.completion.chunk", Created: now.Unix(), Model: model,
			Choices: []choiceJSON{}, Usage: u}
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	return out
}

// split cuts s into pieces of at most size bytes without splitting a UTF-8
// sequence (a piece holds at least one rune).
func split(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		if len(s) <= size {
			out = append(out, s)
			break
		}
		cut := size
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			_, cut = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}
