package llm

import (
	"fmt"
	"strings"
)

// ReasoningEffort picks the reasoning_effort to send to model from the
// config's reasoning_effort and thinking settings, and returns warnings for
// what it cannot send:
//   - reasoning_effort ("low", "medium", "high") wins; else thinking's
//     "low", "medium" or "high" is sent as reasoning_effort, and "off" (or
//     "disabled") as "none", the value Ollama maps to think=false for every
//     model and OpenAI's gpt-5.1 and later take; an endpoint that refuses a
//     value gets the request again without it (fallback.go);
//   - thinking "enabled" would need a thinking object that go-openai's
//     request has no field for: not sent, with a warning;
//   - OpenAI's families that refuse reasoning_effort (gpt-3.5, gpt-4,
//     chatgpt-4o) get none: with a warning, except for "none", since those
//     models do not think anyway; every other model gets it (local servers
//     and routers decide for themselves).
func ReasoningEffort(model, thinking, effort string) (string, []string) {
	var warns []string
	switch thinking {
	case "low", "medium", "high":
		if effort == "" {
			effort = thinking
		}
	case "off", "disabled":
		if effort == "" {
			effort = EffortNone
		}
	case "enabled":
		warns = append(warns, fmt.Sprintf(`"thinking": %q is not supported yet (odek sends only reasoning_effort); use "low", "medium" or "high"`, thinking))
	}
	if effort != "" && refusesReasoningEffort(model) {
		if effort != EffortNone {
			warns = append(warns, fmt.Sprintf("reasoning_effort %q is not sent: model %q does not take it", effort, model))
		}
		effort = ""
	}
	return effort, warns
}

// EffortNone is the reasoning_effort that asks for no reasoning.
const EffortNone = "none"

// refusesReasoningEffort reports OpenAI's non-reasoning chat families, which
// answer 400 to a reasoning_effort.
func refusesReasoningEffort(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range []string{"gpt-3.5", "gpt-4", "chatgpt-4o"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}
