package llm

import (
	"fmt"
	"strings"
)

// ReasoningEffort picks the reasoning_effort to send to model from the
// config's reasoning_effort, thinking and thinking_budget settings, and
// returns warnings for what it cannot send:
//   - reasoning_effort ("low", "medium", "high") wins; else thinking's
//     "low", "medium" or "high" is sent as reasoning_effort, and "off" (or
//     "disabled") as "none", the value Ollama maps to think=false for every
//     model and OpenAI's gpt-5.1 and later take; an endpoint that refuses a
//     value gets the request again without it (fallback.go);
//   - a thinking budget in tokens (thinking_budget; thinking "enabled"
//     without one is DefaultThinkingBudget) is sent as the effort whose
//     budget covers it (EffortForBudget): neither go-openai's chat request
//     nor its Responses request has a field for a token budget, and
//     reasoning_effort is the one both wires carry. A budget beside a named
//     level is not used, with a warning;
//   - OpenAI's families that refuse reasoning_effort (gpt-3.5, gpt-4,
//     chatgpt-4o) get none: with a warning, except for "none", since those
//     models do not think anyway; every other model gets it (local servers
//     and routers decide for themselves).
func ReasoningEffort(model, thinking, effort string, budget int) (string, []string) {
	var warns []string
	named := effort
	switch thinking {
	case "low", "medium", "high":
		if effort == "" {
			effort, named = thinking, "thinking "+thinking
		}
	case "off", "disabled":
		if effort == "" {
			effort, named = EffortNone, "thinking "+thinking
		}
	case "enabled":
		if effort == "" && budget == 0 {
			budget = DefaultThinkingBudget
		}
	}
	switch {
	case budget > 0 && effort != "":
		if named == effort {
			named = "reasoning_effort " + effort
		}
		warns = append(warns, fmt.Sprintf("thinking_budget %d is not used: %s names the reasoning effort", budget, named))
	case budget > 0:
		effort = EffortForBudget(budget)
	}
	if effort != "" && refusesReasoningEffort(model) {
		if effort != EffortNone {
			warns = append(warns, fmt.Sprintf("reasoning_effort %q is not sent: model %q does not take it", effort, model))
		}
		effort = ""
	}
	return effort, warns
}

// DefaultThinkingBudget is the budget of thinking "enabled" without a
// thinking_budget, in tokens (upstream odek's default).
const DefaultThinkingBudget = 5000

// The thinking budgets, in tokens, that Google's OpenAI-compatible Gemini
// endpoint gives the reasoning efforts low, medium and high: the one
// published mapping between the two, used here the other way round.
const (
	lowEffortBudget    = 1024
	mediumEffortBudget = 8192
)

// EffortForBudget is the reasoning effort for a thinking budget of budget
// tokens (> 0): the lowest effort whose budget covers it, "high" above
// medium's.
func EffortForBudget(budget int) string {
	switch {
	case budget <= lowEffortBudget:
		return "low"
	case budget <= mediumEffortBudget:
		return "medium"
	}
	return "high"
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
