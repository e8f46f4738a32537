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
)

// Fallback says that the endpoint refused a request field and that the
// client dropped it for the rest of the run.
type Fallback struct {
	Field   string // FieldTools, FieldReasoningEffort or FieldResponseFormat
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
}

// refusedField names the field of req that err refuses, or "". Only fields
// the request carried count, so a refusal is never acted on twice.
func refusedField(err error, req *Request) string {
	var se *StatusError
	if !errors.As(err, &se) {
		return ""
	}
	body := strings.ToLower(se.Body)
	switch {
	case len(req.Tools) > 0 && se.Status >= 400 && containsAny(body, toolRefusals):
		return FieldTools
	case req.ReasoningEffort != "" && (se.Status == http.StatusBadRequest || se.Status == http.StatusUnprocessableEntity) &&
		containsAny(body, effortRefusals):
		return FieldReasoningEffort
	case req.ResponseFormat != nil && se.Status == http.StatusBadRequest && strings.Contains(body, "response_format"):
		return FieldResponseFormat
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
