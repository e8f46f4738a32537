package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Refusal is how an endpoint answers a request that carries a field it does
// not support, worded as a real server words it (Script.Refuse). Unlike
// reject_params, which always answers in OpenAI's words, the body is given
// verbatim, so a test can replay the provider's own error.
type Refusal struct {
	// Param is the top-level request field, e.g. "tools" or
	// "reasoning_effort", or ParamReasoningItems.
	Param string `json:"param"`
	// Values, when set, limits the refusal to these values of a string
	// field (Ollama refuses reasoning_effort "low" but takes "none").
	Values []string `json:"values,omitempty"`
	// Status is the HTTP status; 0 means 400.
	Status int `json:"status,omitempty"`
	// Body is sent verbatim after replacing {model} and {value} with the
	// request's model and the refused value (JSON-escaped, without quotes).
	// A body that starts with "{" goes out as application/json, anything
	// else as text/plain.
	Body string `json:"body"`
	// Source says where the body was taken from. The server ignores it;
	// fixtures must fill it.
	Source string `json:"source"`
}

func (r *Refusal) validate() error {
	switch {
	case r.Param == "" || r.Param == "model" || r.Param == "messages":
		return fmt.Errorf("param %q cannot be refused", r.Param)
	case r.Body == "":
		return fmt.Errorf("param %q: body is empty", r.Param)
	case r.Source == "":
		return fmt.Errorf("param %q: source is empty (say where the body was taken from)", r.Param)
	case r.Status != 0 && (r.Status < 400 || r.Status > 599):
		return fmt.Errorf("param %q: status %d is not an error status (400-599)", r.Param, r.Status)
	}
	return nil
}

// ParamReasoningItems as a refusal's param refuses a Responses request whose
// input holds a reasoning item (OpenAI's answer to encrypted reasoning it
// cannot verify).
const ParamReasoningItems = "input.reasoning"

// hasReasoningItem reports an input array that holds a reasoning item.
func hasReasoningItem(input json.RawMessage) bool {
	var items []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(input, &items) != nil {
		return false
	}
	for _, it := range items {
		if it.Type == "reasoning" {
			return true
		}
	}
	return false
}

// refusalFor is the first refusal that fits the request body, with the body
// to send; nil when none fits.
func refusalFor(body []byte, rs []Refusal) (*Refusal, string) {
	if len(rs) == 0 {
		return nil, ""
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil, ""
	}
	var model string
	_ = json.Unmarshal(top["model"], &model)
	for i := range rs {
		r := &rs[i]
		if r.Param == ParamReasoningItems {
			if hasReasoningItem(top["input"]) {
				return r, strings.NewReplacer("{model}", jsonText(model), "{value}", "").Replace(r.Body)
			}
			continue
		}
		raw, ok := top[r.Param]
		if !ok || string(raw) == "null" {
			continue
		}
		var value string
		_ = json.Unmarshal(raw, &value) // stays "" for a field that is not a string
		if len(r.Values) > 0 && !contains(r.Values, value) {
			continue
		}
		return r, strings.NewReplacer("{model}", jsonText(model), "{value}", jsonText(value)).Replace(r.Body)
	}
	return nil, ""
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// writeRefusal sends a refusal's status and body.
func writeRefusal(w http.ResponseWriter, r *Refusal, body string) {
	status := r.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	ctype := "text/plain; charset=utf-8"
	if strings.HasPrefix(body, "{") {
		ctype = "application/json"
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// validateRefusals checks a script's refusals.
func validateRefusals(rs []Refusal) error {
	for i := range rs {
		if err := rs[i].validate(); err != nil {
			return fmt.Errorf("fakellm: script: refuse %d: %w", i+1, err)
		}
	}
	return nil
}
