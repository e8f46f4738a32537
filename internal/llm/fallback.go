package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Request fields an endpoint may refuse. When it does, the client sends the
// request again without the field and leaves it out for the rest of the run
// (the Client's life), reporting each once through Options.OnFallback.
const (
	FieldTools           = "tools"
	FieldReasoningEffort = "reasoning_effort"
	FieldResponseFormat  = "response_format"
	// On the Responses wire only: the cache key, and the reasoning items
	// sent back (with the include that asks for their encrypted content).
	FieldPromptCacheKey = "prompt_cache_key"
	FieldReasoningItems = "reasoning_items"
	// On the chat wire only: the cache key, sent as user.
	FieldUser = "user"
)

// Fallback says that the endpoint refused a request field and that the
// client dropped it for the rest of the run.
type Fallback struct {
	Field   string // one of the Field* names
	Value   string // the refused reasoning_effort value; "" for the other fields
	Model   string
	Status  int    // the refusal's HTTP status
	Message string // the provider's words, capped
}

// Warning words the fallback for a person.
func (f Fallback) Warning() string {
	why := fmt.Sprintf("HTTP %d: %s", f.Status, strings.Join(strings.Fields(f.Message), " "))
	switch f.Field {
	case FieldTools:
		return fmt.Sprintf("model %q cannot use tools (%s); continuing without tools for the rest of the run (--no-tools skips the refused request)", f.Model, why)
	case FieldReasoningEffort:
		what := fmt.Sprintf("reasoning_effort %q", f.Value)
		if f.Value == "none" {
			what += " (--thinking off)"
		}
		return fmt.Sprintf("the endpoint refused %s for model %q (%s); continuing without it for the rest of the run (the model thinks as it does by default)", what, f.Model, why)
	case FieldUser:
		return fmt.Sprintf("the endpoint refused the prompt cache key sent as user for model %q (%s); continuing without it for the rest of the run (prompt_caching false skips it)", f.Model, why)
	case FieldReasoningItems:
		return fmt.Sprintf("the endpoint refused the reasoning sent back to model %q (%s); the request was sent again without it, and no reasoning is sent back for the rest of the run", f.Model, why)
	}
	return fmt.Sprintf("the endpoint rejected %s (HTTP %d); continuing without it for the rest of the run", f.Field, f.Status)
}

// toolRefusals are the words servers use to refuse a request's tools, matched
// case-insensitively; each is quoted from its source in
// internal/fakellm/testdata/refusals.json.
var toolRefusals = []string{
	"does not support tools",                         // Ollama: "registry.ollama.ai/library/<model> does not support tools" (400)
	"tool choice requires --enable-auto-tool-choice", // vLLM without --enable-auto-tool-choice (400)
	"tools param requires --jinja",                   // llama.cpp's server without --jinja (500)
	"unsupported param: tools",                       // llama.cpp's server before --jinja existed (500)
	"no endpoints found that support tool use",       // OpenRouter (404)
	"'tools' is not supported",                       // OpenAI-style unsupported_parameter
}

// effortRefusals are the words servers use to refuse a reasoning_effort.
var effortRefusals = []string{
	"reasoning_effort",          // OpenAI: "Unsupported value: 'reasoning_effort' does not support 'none' with this model…"
	"does not support thinking", // Ollama, a model without thinking: "\"<model>\" does not support thinking"
	"think value",               // Ollama, a level only gpt-oss takes: "think value \"low\" is not supported for this model"
	"invalid reasoning value",   // Ollama's OpenAI layer, a value it does not know
	"reasoning.effort",          // OpenAI's Responses API: "Unsupported parameter: 'reasoning.effort' is not supported with this model."
}

// userRefusals are the words servers use to refuse the user field: the
// field named alone, as strict OpenAI-compatible servers quote an
// unknown parameter.
var userRefusals = []string{
	"'user'", `"user"`, "`user`", "parameter: user", "param: user", "unrecognized request argument supplied: user",
}

// reasoningItemRefusals are the words OpenAI uses to refuse a reasoning item
// sent back (Responses wire): one encrypted for another organisation or
// model, or an id it cannot find with store false.
var reasoningItemRefusals = []string{
	"encrypted content", // "The encrypted content for item rs_… could not be verified."
	"encrypted_content",
	"items are not persisted when `store` is set to false", // "Item with id 'rs_…' not found. Items are not persisted when `store` is set to false. …"
}

// refusedField names the field of req that err refuses, or "". Only fields
// the request carried count, so a refusal is never acted on twice.
func (c *Client) refusedField(err error, req *Request) string {
	var se *StatusError
	if !errors.As(err, &se) {
		return ""
	}
	body := strings.ToLower(se.Body)
	bad := se.Status == http.StatusBadRequest || se.Status == http.StatusUnprocessableEntity
	if c.wire == WireResponses {
		switch {
		case bad && c.sendsReasoningItems() && carriesReasoningItems(req.Messages) && containsAny(body, reasoningItemRefusals):
			return FieldReasoningItems
		case bad && c.cacheKey != "" && !c.dropped.has(FieldPromptCacheKey) && strings.Contains(body, "prompt_cache_key"):
			return FieldPromptCacheKey
		case req.ResponseFormat != nil && bad && strings.Contains(body, "text.format"):
			return FieldResponseFormat
		}
	}
	switch {
	case len(req.Tools) > 0 && se.Status >= 400 && containsAny(body, toolRefusals):
		return FieldTools
	case req.ReasoningEffort != "" && (se.Status == http.StatusBadRequest || se.Status == http.StatusUnprocessableEntity) &&
		containsAny(body, effortRefusals):
		return FieldReasoningEffort
	case req.ResponseFormat != nil && se.Status == http.StatusBadRequest && strings.Contains(body, "response_format"):
		return FieldResponseFormat
	case c.wire != WireResponses && bad && c.cacheKey != "" && !c.dropped.has(FieldUser) && containsAny(body, userRefusals):
		return FieldUser
	}
	return ""
}

func containsAny(s string, subs []string) bool {
	for _, m := range subs {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// dropped records the fields refused so far in this run.
type dropped struct {
	mu     sync.Mutex
	fields map[string]bool
}

// add records field; false when it was already recorded.
func (d *dropped) add(field string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fields[field] {
		return false
	}
	if d.fields == nil {
		d.fields = make(map[string]bool, 3)
	}
	d.fields[field] = true
	return true
}

// has reports whether field was refused earlier in the run.
func (d *dropped) has(field string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fields[field]
}

// apply leaves out of req every field refused earlier in the run.
func (d *dropped) apply(req Request) Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	for f := range d.fields {
		req = without(req, f)
	}
	return req
}

// without is req without field.
func without(req Request, field string) Request {
	switch field {
	case FieldTools:
		req.Tools = nil
	case FieldReasoningEffort:
		req.ReasoningEffort = ""
	case FieldResponseFormat:
		req.ResponseFormat = nil
	}
	return req
}
