package cli

import (
	"context"
	"fmt"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/spf13/cobra"
)

// continueOptions are what `odek continue` is asked to do: run's options
// and which session to carry on. RunE only fills them.
type continueOptions struct {
	runOptions
	id         string // --id
	idGiven    bool   // --id was given, even empty
	anyDir     bool   // --any-dir
	modelGiven bool   // --model was given: it beats the session's
}

// newCmdContinue is `odek continue`: RunE fills continueOptions and hands
// them to runF (runContinue when nil).
func newCmdContinue(ios *iostreams.IOStreams, runF func(context.Context, *continueOptions) error) *cobra.Command {
	o := &continueOptions{runOptions: runOptions{io: ios}}
	cmd := &cobra.Command{
		Use:   "continue [--id <id>] [flags] <task>|-",
		Short: "Carry on a saved session with a new task",
		Long: `Carry on a session saved by odek run --session: the conversation so far,
the plan, then the new task, with the same tools as run.

Without --id the most recently updated session of this directory is
continued (the one run --session started here, or in -C's directory);
--any-dir continues the most recently updated one of any directory. Budgets
(--max-*) and events (--events-jsonl) apply to this run as to odek run
(DECISION 3); the model is the session's unless --model says otherwise, and
the system prompt is the one the conversation started with (--system and
--append-system do not change it). The session is saved after every tool batch and when the
run ends.

The task comes from the arguments, --task-file or stdin, and --output takes
text, json or stream-json, as for odek run.

Exit codes: as odek run; an invalid --id exits 3.`,
		Example: `  odek run --session "Find the flaky test in ./internal/loop"
  odek continue "Now fix it"
  odek continue --any-dir "Carry on wherever the last session ran"
  odek continue --id 20260807-0123456789abcdef0123456789abcdef --max-tool-calls 20 "And add a regression test"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			o.idGiven, o.modelGiven = cmd.Flags().Changed("id"), cmd.Flags().Changed("model")
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runContinue(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.id, "id", "", "the session to continue (default: the most recently updated of this directory)")
	fl.BoolVar(&o.anyDir, "any-dir", false, "without --id: continue the most recently updated session of any directory")
	registerRunFlags(cmd, &o.run.Overrides)
	registerRunOutputFlags(cmd, &o.runOptions)
	registerTaskFlags(cmd, ios, &o.runOptions)
	o.sessFlag.register(cmd)
	fl.SetInterspersed(true)
	return cmd
}

// runContinue is `odek continue` from its options: the run's checks and
// task, the session to carry on (its model unless --model says otherwise),
// then the run.
func runContinue(ctx context.Context, o *continueOptions) error {
	if err := runview.CheckMode("continue", o.run.Output); err != nil {
		return err
	}
	if err := o.readInputs(ctx, "continue"); err != nil {
		return o.earlyFailure(ctx, err)
	}
	sess, err := loadForContinue(o.io, o.id, o.idGiven, o.anyDir)
	if err != nil {
		return o.earlyFailure(ctx, fmt.Errorf("continue: %w", err))
	}
	o.run.Resume, o.run.Session = sess, true
	if !o.modelGiven && sess.Model != "" {
		if err := o.run.Overrides.Set("model", sess.Model, "the session"); err != nil {
			return errclass.Wrap(errclass.SetupError, err)
		}
	}
	return runAgent(ctx, &o.runOptions)
}
