package agentrun

import (
	"context"
	"fmt"
	"slices"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/runview"
)

// finish prints the answer (or the report) and returns the run's error for
// the exit code.
func (r *Run) finish(ctx context.Context, ios *iostreams.IOStreams, res *loop.Result, runErr error) error {
	r.sinks.view.Summary(res, runErr)
	if res != nil && runErr == nil && res.Stop == loop.StopMaxTokens {
		runview.PrintWarnings(ios, []string{runview.CutAnswerWarning})
	}
	if res != nil && runErr == nil && res.Stop == loop.StopHookCap {
		runview.PrintWarnings(ios, []string{runview.StopCapWarning(r.conf.cfg.MaxStopContinuations)})
	}
	switch {
	case r.o.Output == runview.StreamJSON:
		r.sinks.closeEvents() // every event before the report
		if err := r.sinks.stream.WriteLast(runview.NewReport(ctx, ios, r.facts(), res, runErr)); err != nil {
			fmt.Fprintf(ios.ErrOut, "odek: writing the run report: %v\n", err)
		}
	case r.o.Output == runview.JSON:
		r.sinks.closeEvents() // the count of dropped events is final
		runview.WriteJSON(ios, runview.NewReport(ctx, ios, r.facts(), res, runErr))
	case r.schema != nil: // the matching value alone, or nothing
		if v := r.schema.value(); v != nil && runErr == nil {
			runview.WriteAnswer(ios, string(v)) // JSON: on a terminal its escapes stay valid JSON escapes
		}
	case res != nil && res.Answer != "":
		runview.WriteAnswer(ios, res.Answer)
	}
	return runErr
}

// facts are what the run report says about the run, read now.
func (r *Run) facts() runview.Facts {
	f := runview.Facts{
		RunID: r.conf.runID, Model: r.conf.cfg.Model, Start: r.conf.start,
		Denials: r.tools.denied.All(), Sandbox: r.tools.sandbox.info,
		Artifacts: runview.Artifacts(r.tools.store), EventsDropped: r.sinks.emitter.Dropped(),
		AgentsFiles: r.agentsFiles(), ProjectFile: r.conf.cfg.ProjectFile,
	}
	if r.schema != nil {
		f.OutputSchema, f.OutputSchemaSHA, f.Output = true, r.schema.sha256(), r.schema.value()
	}
	if r.session != nil {
		f.SessionID, f.ParentSessionID = r.session.sess.ID, r.session.sess.Parent
	}
	if r.limits.tracker != nil {
		snap := r.limits.tracker.Snapshot()
		f.Budget = &snap
		f.Models = usedModels(r.model.models(r.conf.cfg.Model), r.limits.tracker.Models())
	}
	if rn := r.hookRunner(); rn != nil {
		counts := rn.Counts()
		f.Hooks = &counts
	}
	return f
}

// writeSetupReport prints the report of a run that never started; r is nil
// when it failed before setting up (flags, arguments), else as far as its
// setup got.
func writeSetupReport(ctx context.Context, ios *iostreams.IOStreams, r *Run, err error) {
	var f *runview.Facts
	if r != nil {
		f = &runview.Facts{RunID: r.conf.runID, Start: r.conf.start}
		if r.tools != nil {
			f.Sandbox = r.tools.sandbox.info
		}
		if r.conf.cfg != nil {
			f.Model, f.ProjectFile = r.conf.cfg.Model, r.conf.cfg.ProjectFile
		}
	}
	runview.WriteSetupReport(ctx, ios, f, err)
}

// usedModels is the report's models: every model the run sent requests
// to, in order (one that only failed has no usage), then any other model
// the budget saw serve.
func usedModels(sent []string, served []budget.ModelUsage) []budget.ModelUsage {
	out := make([]budget.ModelUsage, 0, len(sent)+len(served))
	for _, m := range sent {
		u := budget.ModelUsage{Model: m, Priced: true}
		for _, s := range served {
			if s.Model == m {
				u = s
			}
		}
		out = append(out, u)
	}
	for _, s := range served {
		if !slices.Contains(sent, s.Model) {
			out = append(out, s)
		}
	}
	return out
}
