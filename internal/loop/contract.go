package loop

import "github.com/odek-run/odek/internal/llm"

// AnswerChecker holds final answers to a contract the caller sets (the
// output schema of --output-schema); the loop only knows this interface.
type AnswerChecker interface {
	// Check sees a final answer. A non-empty reAsk is sent to the model as
	// a user message and the loop goes on: one more iteration, counted
	// against MaxIterations and every budget. An error ends the run.
	Check(answer string) (reAsk string, err error)
	// Last sees an answer that cannot be asked again (the iteration-cap
	// summary); an error ends the run.
	Last(answer string) error
}

// checkAnswer holds a final answer (or finalAnswer's error) to
// Options.Answers. again reports that the model was asked again.
func (r *runner) checkAnswer(i int, answer string, err error) (again bool, _ error) {
	if err != nil || r.o.Answers == nil {
		return false, err
	}
	reAsk, err := r.o.Answers.Check(answer)
	if err != nil || reAsk == "" {
		return false, err
	}
	r.reAsks++
	r.res.Stop, r.res.Partial = StopCompleted, false // a cut answer asked again is no longer the end
	r.hist.Append(llm.Message{Role: llm.RoleUser, Content: reAsk})
	r.progress(Progress{Kind: ProgressReAsk, Iteration: i})
	return true, nil
}

// contractData adds the contract's fields to run_completed and run_failed.
func (r *runner) contractData(d map[string]any) {
	if r.o.Answers != nil {
		d["output_schema"] = true
		d["schema_retries"] = r.reAsks
	}
}
