package loop

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/llm"
)

// Finish reasons the loop acts on (OpenAI's names, which compatible servers
// share). "stop" and "tool_calls" are ordinary ends.
const (
	finishLength        = "length"
	finishContentFilter = "content_filter"
)

// Stop says how a run that returned no error ended.
type Stop int

// How a run without an error ended.
const (
	StopCompleted     Stop = iota // the model answered
	StopMaxIterations             // the iteration cap; the answer is a partial summary
	StopMaxTokens                 // the answer was cut at the provider's output-token limit
	StopEarly                     // the caller stopped the run; the answer is PartialSummary's
	StopHookCap                   // a Stop hook still objected after MaxStopContinuations; the answer stands
)

// think is the iteration's model call. A reply with neither text nor tool
// calls is asked again once (its usage still counts against the budgets); a
// second one fails the run. A content-filter stop is a model error. The
// returned response's usage is not yet accounted.
func (r *runner) think(ctx context.Context, i int) (*llm.Response, error) {
	resp, err := r.complete(ctx, i)
	if err != nil {
		return nil, err
	}
	if isEmptyReply(resp) {
		if err := r.account(resp); err != nil {
			return nil, err
		}
		r.progress(Progress{Kind: ProgressEmptyReply, Iteration: i})
		if resp, err = r.complete(ctx, i); err != nil {
			return nil, err
		}
		if isEmptyReply(resp) {
			if err := r.account(resp); err != nil {
				return nil, err
			}
			return nil, &AnswerError{Iteration: i, Err: ErrEmptyAnswer, Detail: "no text and no tool calls, twice in a row"}
		}
	}
	return resp, nil
}

// complete makes one model call with the history as it stands and records
// its timing and reasoning.
func (r *runner) complete(ctx context.Context, i int) (*llm.Response, error) {
	r.progress(Progress{Kind: ProgressThinking, Iteration: i})
	maxTokens, clamped := r.maxTokens()
	req := llm.Request{
		Model: r.o.ModelName, Tools: r.o.Tools.Specs(),
		MaxTokens: maxTokens, ReasoningEffort: r.o.ReasoningEffort, ResponseFormat: r.o.ResponseFormat,
	}
	resp, err := r.send(ctx, i, req) // the trimmed history; survival mode on a length rejection
	if err != nil {
		if ctx.Err() != nil {
			return nil, cause(ctx)
		}
		return nil, fmt.Errorf("iteration %d: %w", i, err)
	}
	r.clamped = clamped
	r.res.LLMDuration += resp.Timing.Total
	r.llmOutput += resp.Usage.OutputTokens
	if t := resp.Timing.TimeToFirstToken; t > 0 {
		r.ttftSum += t
		r.ttftCount++
		r.res.TimeToFirstToken = r.ttftSum / time.Duration(r.ttftCount)
	}
	r.res.ReasoningChars += int64(utf8.RuneCountInString(resp.Message.ReasoningContent))
	r.res.ReasoningTokens += resp.Usage.ReasoningTokens
	return resp, nil
}

// maxTokens is the per-call cap: Options.MaxTokens, lowered to the output
// tokens the budget has left. clamped reports that the budget set it.
func (r *runner) maxTokens() (limit int, clamped bool) {
	limit = r.o.MaxTokens
	if left, ok := r.o.Budget.OutputTokensLeft(); ok && (limit == 0 || left < int64(limit)) {
		return int(max(left, 1)), true
	}
	return limit, false
}

// isEmptyReply reports a reply with nothing to act on: no text, no tool
// calls, and no finish reason that explains why (a cut or filtered reply is
// handled as such, not asked again).
func isEmptyReply(resp *llm.Response) bool {
	return len(resp.Message.ToolCalls) == 0 && strings.TrimSpace(resp.Message.Content) == "" &&
		resp.FinishReason != finishLength && resp.FinishReason != finishContentFilter
}

// refusal is the error for a reply the provider's content filter stopped.
func refusal(i int, resp *llm.Response) error {
	if resp.FinishReason != finishContentFilter {
		return nil
	}
	return &AnswerError{Iteration: i, Err: ErrContentFilter, Detail: `finish_reason "content_filter"`}
}

// finalAnswer ends the run with a reply that has no tool calls. A reply cut
// at the output-token limit is a partial answer, or a budget stop when the
// limit was the output-token budget's own clamp; a cut reply with no text at
// all is no answer.
func (r *runner) finalAnswer(i int, resp *llm.Response) (string, error) {
	r.hist.Append(resp.Message)
	r.iterationDone(i, resp, 0)
	r.afterBatch()
	if resp.FinishReason != finishLength {
		return resp.Message.Content, nil
	}
	if r.clamped {
		return "", r.outputBudgetStop()
	}
	if strings.TrimSpace(resp.Message.Content) == "" {
		return "", &AnswerError{Iteration: i, Err: ErrEmptyAnswer,
			Detail: `the output-token limit was reached (finish_reason "length") before any answer text`}
	}
	r.res.Stop = StopMaxTokens
	r.res.Partial = true
	return resp.Message.Content, nil
}

// outputBudgetStop is the budget error for a reply cut at a max_tokens that
// odek lowered to the output tokens left: the provider spent all of them,
// whether or not it reported usage that says so.
func (r *runner) outputBudgetStop() error {
	snap := r.o.Budget.Snapshot()
	limit := float64(snap.Limits.MaxOutputTokens)
	return &budget.Error{Limit: budget.LimitOutputTokens, Observed: max(float64(snap.OutputTokens), limit), Max: limit}
}
