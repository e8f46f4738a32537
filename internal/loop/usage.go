package loop

import (
	"fmt"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/llm"
)

// usageOf is what one response counts against the budgets: the provider's
// usage, or, where it reported none, odek's estimate of what it sent and
// received (estimate.go), marked Estimated. A count is missing when the
// response had no usage object, or when it gave 0 where there was
// something to count: a prompt is never empty, and a reply with text or
// tool calls has output tokens. The first estimate warns once.
func (r *runner) usageOf(resp *llm.Response) budget.Usage {
	p := resp.Usage
	u := budget.Usage{
		InputTokens: p.InputTokens, OutputTokens: p.OutputTokens,
		CacheReadTokens: p.CacheReadTokens, CacheCreationTokens: p.CacheCreationTokens,
		CostUSD: p.CostUSD, CostReported: p.CostReported, Model: resp.Model,
	}
	if !p.Present || p.Prompt() == 0 {
		u.InputTokens, u.CacheReadTokens, u.CacheCreationTokens = int64(r.sentTokens), 0, 0
		u.Estimated = true
	}
	if out := replyTokens(&resp.Message); (!p.Present || p.OutputTokens == 0) && out > 0 {
		u.OutputTokens = int64(out)
		u.Estimated = true
	}
	if u.Estimated && !r.warnedEstimate {
		r.warnedEstimate = true
		r.warn(fmt.Sprintf("the provider reported no token usage for model %q: odek counts an estimate of what it sent "+
			"and received instead (a quarter token per byte, plus fixed overheads), enforces every budget on it, "+
			"and marks the run's token and cost figures as estimated (usage_estimated)", r.o.ModelName))
	}
	return u
}

// noteSent keeps the estimate of a request about to be sent, for a
// response that reports no usage.
func (r *runner) noteSent(req *llm.Request) {
	r.sentTokens = EstimateMessages(req.Messages) + EstimateTools(req.Tools)
}
