package cli

import (
	"context"
	"fmt"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// continueOptions are what `odek continue` is asked to do: run's options
// and which session to carry on. RunE only fills them.
type continueOptions struct {
	runOptions
	id      string          // --id
	idGiven bool            // --id was given, even empty
	anyDir  bool            // --any-dir
	fork    bool            // --fork: carry on a copy, under --session-id
	changed map[string]bool // the flags given, by name
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
(--max-*) and events (--events-jsonl) apply to this run as to odek run, with
this run's limits: a session that stopped on a budget goes on with new ones.
The model is the session's unless --model says otherwise, and the system
prompt is the one the conversation started with: --system and
--append-system are refused here, and no AGENTS.md is read again. The
session is saved after every tool batch and when the run ends.

--fork carries on a copy of the session instead, under --session-id (a fresh
id without it); the session itself is left as it was. Without --fork,
--session-id is another spelling of --id.

The task comes from the arguments, --task-file or stdin, and --output takes
text, json or stream-json, as for odek run.

Exit codes: as odek run; an invalid --id or --session-id, or a fork onto an id
that is taken, exits 3.`,
		Example: `  odek run --session "Find the flaky test in ./internal/loop"
  odek continue "Now fix it"
  odek continue --any-dir "Carry on wherever the last session ran"
  odek continue --fork --session-id ci-1234.b "Try another way"
  odek continue --id 20260807-0123456789abcdef0123456789abcdef --max-tool-calls 20 "And add a regression test"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			o.idGiven, o.modelGiven = cmd.Flags().Changed("id"), cmd.Flags().Changed("model")
			o.sessionIDGiven = cmd.Flags().Changed("session-id")
			o.changed = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { o.changed[f.Name] = true })
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runContinue(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.id, "id", "", "the session to continue (default: the most recently updated of this directory)")
	fl.BoolVar(&o.anyDir, "any-dir", false, "without --id: continue the most recently updated session of any directory")
	fl.BoolVar(&o.fork, "fork", false, "carry on a copy of the session under a new id (--session-id, else a fresh one); the session itself is left as it was")
	registerSessionIDFlag(cmd, &o.runOptions, "with --fork: the copy's id (1 to 128 of A-Z a-z 0-9 . _ -); without: the session to continue, as --id")
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
	if err := o.sessionIDAsID(); err != nil {
		return o.earlyFailure(ctx, err)
	}
	if err := o.promptFlags(); err != nil {
		return o.earlyFailure(ctx, err)
	}
	sess, err := loadForContinue(o.io, o.id, o.idGiven, o.anyDir)
	if err != nil {
		return o.earlyFailure(ctx, fmt.Errorf("continue: %w", err))
	}
	if o.fork {
		if sess, err = o.forkSession(sess); err != nil {
			return o.earlyFailure(ctx, err)
		}
	}
	if err := o.resume(sess); err != nil {
		return err
	}
	return runAgent(ctx, &o.runOptions)
}

// promptFlags refuses the flags that would change the system prompt: a
// continued session keeps the one it began with, so they would do
// nothing. --no-agents does nothing either (no AGENTS.md is read again),
// but changes nothing the run does: a warning.
func (o *continueOptions) promptFlags() error {
	for _, name := range []string{"system", "append-system"} {
		if o.changed[name] {
			return errclass.Wrap(errclass.SetupError, fmt.Errorf("continue: --%s has no effect: a continued session keeps the system prompt it began with (start a new one with odek run --session)", name))
		}
	}
	if o.changed["no-agents"] && !o.run.Quiet {
		fmt.Fprintln(o.io.ErrOut, "odek: warning: --no-agents has no effect on continue: the session keeps the system prompt it began with, and no AGENTS.md is read again")
	}
	return nil
}

// sessionIDAsID reads continue's --session-id without --fork as --id
// (the spelling run takes); both, naming different sessions, are refused.
func (o *continueOptions) sessionIDAsID() error {
	if o.fork || !o.sessionIDGiven {
		return nil
	}
	if o.idGiven && o.id != o.sessionID {
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("continue: --id %s and --session-id %s name different sessions (--session-id names the copy only with --fork)", o.id, o.sessionID))
	}
	o.id, o.idGiven = o.sessionID, true
	return nil
}
