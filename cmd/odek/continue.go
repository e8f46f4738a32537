package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newContinueCmd(ios *IOStreams) *cobra.Command {
	var o runOptions
	var sf sessionFlags
	var id string
	var anyDir bool
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
			if err := checkOutputMode("continue", o.output); err != nil {
				return err
			}
			if err := sf.apply(cmd, &o); err != nil {
				earlyReport(cmd, ios, err)
				return err
			}
			task, untrusted, err := readTask(cmd.Context(), ios, taskInput{cmd: "continue", args: args, file: o.taskFile, quiet: o.quiet})
			if err != nil {
				earlyReport(cmd, ios, err)
				return err
			}
			o.task, o.untrustedTask = task, untrusted
			sess, err := loadForContinue(ios, id, cmd.Flags().Changed("id"), anyDir)
			if err != nil {
				err = fmt.Errorf("continue: %w", err)
				earlyReport(cmd, ios, err)
				return err
			}
			o.resume, o.session = sess, true
			if !cmd.Flags().Changed("model") && sess.Model != "" {
				if err := o.overrides.Set("model", sess.Model, "the session"); err != nil {
					return asSetup(err)
				}
			}
			return runRun(cmd.Context(), ios, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&id, "id", "", "the session to continue (default: the most recently updated of this directory)")
	fl.BoolVar(&anyDir, "any-dir", false, "without --id: continue the most recently updated session of any directory")
	registerRunFlags(cmd, &o.overrides)
	registerRunOutputFlags(cmd, &o)
	registerTaskFlags(cmd, ios, &o)
	sf.register(cmd)
	fl.SetInterspersed(true)
	return cmd
}
