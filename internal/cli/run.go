package cli

import (
	"context"
	"fmt"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/spf13/cobra"
)

// runOptions are what `odek run` is asked to do: RunE only fills them
// (streams, arguments, flags) and hands them to runRun. continue embeds
// them; runAgent, which both end in, reads the task and the session from
// them.
type runOptions struct {
	io       *iostreams.IOStreams
	args     []string     // the command line's arguments: the task, or "-"
	sessFlag sessionFlags // --external-ref, --no-planning, --no-compaction
	taskFile string       // --task-file
	ctxFiles []string     // --ctx, repeatable
	// sessionID is --session-id: run creates or carries on that session,
	// continue --fork names its copy.
	sessionID      string
	modelGiven     bool // --model was given: it beats a carried-on session's
	sessionIDGiven bool // --session-id was given, even empty
	// run is what the run is set up with: the flags, then the task and
	// the session the checks read.
	run agentrun.Options
}

// newCmdRun is `odek run`: RunE fills runOptions and hands them to runF
// (runRun when nil).
func newCmdRun(ios *iostreams.IOStreams, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := &runOptions{io: ios}
	cmd := &cobra.Command{
		Use:   "run [flags] <task>|-",
		Short: "Run one agent task and print the final answer on stdout",
		Long: `Run one agent task: the model thinks, calls tools, and repeats until it answers.

The task is the arguments, or the file --task-file names, or stdin: "odek run -"
and "odek run" with a piped stdin read it from there. Stdin piped in beside a
task argument (or file) is added to the task as context, after a blank line,
between the lines "--- stdin ---" and "--- end stdin ---"; odek reads it only
when it is not a terminal, until it is closed (run with </dev/null to skip it).
A task from stdin or a file is at most 1 MiB of UTF-8 text. A task that starts
with "-" goes after "--". --ctx FILE (repeatable) puts a file's text before
the task, and @path in a task argument is replaced by that file's text (an
@word naming no file stays as written); both are fenced as untrusted data,
under the same limits, and taint the run like a task file.

The final answer alone goes to stdout; progress, warnings and errors go to
stderr. --output json prints one odek.run-report/v1 object instead, and
--output stream-json prints every odek.event/v1 event as a line as it happens,
with odek.stream/v1 lines beside them (init, the model's text, tool results),
then the report as the last line; both print a report on every failure, flag
errors included.

Budgets (--max-*) are hard stops: when one is exhausted the run stops, says
which limit it hit, keeps its work and exits 4. For every --max-* flag, 0
means odek's built-in default: no limit for the budgets, 90 iterations for
--max-iter, 4 for --max-tool-parallel. A flag beats the config files, so
--max-runtime 0 removes a runtime budget the config sets.

With --output-schema FILE the final answer must be one JSON value matching
the schema (draft 2020-12 or draft-07): stdout is that value alone, compact;
an answer that does not match is sent back with the errors (output_schema_retries,
default 2), and one that still does not match fails the run (exit 1).

--record DIR writes the run's exchanges with the model, the MCP servers and
the shell into a cassette; --replay DIR serves them from it, offline and
without an API key, and stops at the first request that departs from it
(exit 3). See docs/TESTING.md.

Hooks in Claude Code's format (the "hooks" key of the config) run around the
loop; --no-hooks runs none. See docs/HOOKS.md.

Exit codes: 0 success (also an --max-iter partial summary, an answer the
model cut at its output limit, or one a Stop hook still objected to at
max_stop_continuations, with a warning), 1 task/model/tool error
(including an empty answer, or a hook that stopped the run), 3 setup error
(flags, config, MCP servers, an unapproved project hook, a replay that
departs from its cassette), 4 budget exhausted, 130 interrupted.`,
		Example: `  odek run "List the Go packages in this repo and what each one does"
  odek run --model gpt-4o --max-iter 20 "Find and fix the flaky test in ./internal/loop"
  odek run --max-runtime 600 --max-tool-calls 50 --max-cost-usd 1 --events-jsonl run.jsonl "Update the changelog"
  odek run --output json "What is 2+2?" | jq -r .status
  odek run --session-id "ci-$CI_JOB_ID" --max-cost-usd 2 "Fix the failing test"   # a retry resumes
  git diff | odek run "Review this diff"
  odek run --task-file task.md --output stream-json | jq -c 'select(.type == "tool_call_failed")'
  odek run -C ../other-repo "Run the tests and summarise the failures"
  odek run --output-schema verdict.schema.json "Review the last commit" | jq -r .verdict
  odek run --print-system --append-system "Answer in French."
  odek run --fail-on-denial -c 'dangerous={"allowlist":["go test *"]}' "Run the tests and fix what fails"
  odek run -- "-v is not a flag here, it is part of the task"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			o.modelGiven, o.sessionIDGiven = cmd.Flags().Changed("model"), cmd.Flags().Changed("session-id")
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runRun(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	registerRunFlags(cmd, &o.run.Overrides)
	registerRunOutputFlags(cmd, o)
	registerTaskFlags(cmd, ios, o)
	o.sessFlag.register(cmd)
	fl.BoolVar(&o.run.PrintSystem, "print-system", false, "print the system prompt this run would send (AGENTS.md, --system, --append-system and --output-schema applied) and exit; no task, no model call")
	fl.BoolVar(&o.run.Session, "session", false, "save the conversation as a session that odek continue can carry on")
	registerSessionIDFlag(cmd, o, "save the conversation as the session of this id (1 to 128 of A-Z a-z 0-9 . _ -), or carry it on when it exists: a retried CI step resumes (implies --session)")
	fl.BoolVar(&o.run.FullAuto, "full-auto", false, "for CI: sandbox workspace-write with the network off, and every risk class the sandbox contains allowed without a prompt (exit 3 where the kernel cannot hold the sandbox)")
	fl.SetInterspersed(true)
	return cmd
}

// registerTaskFlags are the flags that say where the task comes from, and
// the value completions of run's flags; run and continue share them.
func registerTaskFlags(cmd *cobra.Command, ios *iostreams.IOStreams, o *runOptions) {
	cmd.Flags().StringVar(&o.taskFile, "task-file", "", `read the task from this file ("-" = stdin)`)
	cmd.Flags().StringArrayVar(&o.ctxFiles, "ctx", nil, "put this file's text before the task as context, fenced as untrusted data (repeatable; at most 1 MiB of UTF-8 text each)")
	registerValueCompletions(cmd, ios)
}

// registerRunOutputFlags are the events and output flags of run, which
// continue shares (DECISION 3).
func registerRunOutputFlags(cmd *cobra.Command, o *runOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.run.EventsPath, "events-jsonl", "", "append odek.event/v1 events to this file (0600; parent dir must exist), or write them to an existing FIFO")
	fl.BoolVar(&o.run.EventsIncludeArgs, "events-include-args", false, "include raw (redacted) tool arguments in tool_call_started events")
	fl.StringVar(&o.run.Output, "output", runview.Text, "stdout format: text (the bare answer), json (an odek.run-report/v1 object) or stream-json (events live, then the report)")
	fl.BoolVarP(&o.run.Quiet, "quiet", "q", false, "print nothing on stderr but errors, warnings and what odek waits for (stdin that stays open)")
	registerCassetteFlags(cmd, &o.run.Cassette)
	fl.BoolVar(&o.run.FailOnDenial, "fail-on-denial", false, "exit 1 when the risk policy denied any tool call, even if the run otherwise succeeded")
}

// runRun is `odek run` from its options: the checks and inputs no flag
// parser makes (output mode, session flags, the task), then the run.
func runRun(ctx context.Context, o *runOptions) error {
	if err := runview.CheckMode("run", o.run.Output); err != nil {
		return err
	}
	if o.run.PrintSystem {
		return runPrintSystem(ctx, o)
	}
	if err := o.readInputs(ctx, "run"); err != nil {
		return o.earlyFailure(ctx, err)
	}
	if o.sessionIDGiven {
		if err := o.openSessionID("run"); err != nil {
			return o.earlyFailure(ctx, err)
		}
	}
	if len(o.run.Refs) > 0 && !o.run.Session {
		fmt.Fprintln(o.io.ErrOut, "odek: warning: --external-ref given without --session — refs will not be persisted")
	}
	return runAgent(ctx, o)
}

// readInputs applies the session flags and reads the task (arguments,
// --task-file or stdin), for run and continue.
func (o *runOptions) readInputs(ctx context.Context, command string) error {
	if err := o.sessFlag.apply(command, o); err != nil {
		return err
	}
	task, untrusted, err := readTask(ctx, o.io, taskInput{cmd: command, args: o.args, file: o.taskFile, ctx: o.ctxFiles})
	if err != nil {
		return err
	}
	o.run.Task, o.run.UntrustedTask = task, untrusted
	return nil
}

// earlyFailure is a failure before setup: with --output json or
// stream-json it is still reported on stdout.
func (o *runOptions) earlyFailure(ctx context.Context, err error) error {
	if runview.ReportsJSON(o.run.Output) {
		runview.WriteSetupReport(ctx, o.io, nil, err)
	}
	return err
}

// runPrintSystem sets the run up as it would start (tools, MCP servers,
// schema) and prints its system prompt instead of running it.
func runPrintSystem(ctx context.Context, o *runOptions) error {
	o.run.Quiet = true
	runCtx, r, err := agentrun.Setup(ctx, o.setupOptions())
	if err != nil {
		return r.FailSetup(ctx, err)
	}
	defer r.Close(runCtx)
	// The prompt holds the repository's AGENTS.md text: on a terminal
	// its controls are shown, not obeyed.
	runview.WriteAnswer(o.io, r.SystemPrompt())
	return nil
}

// runAgent is the run that odek run and continue share: set up, run the
// loop, report.
func runAgent(ctx context.Context, o *runOptions) error {
	runCtx, r, err := agentrun.Setup(ctx, o.setupOptions())
	if err != nil {
		return r.FailSetup(ctx, err)
	}
	defer r.Close(runCtx)
	return r.Execute(ctx, runCtx)
}

// setupOptions are the run's options with the streams and the version.
func (o *runOptions) setupOptions() agentrun.Options {
	so := o.run
	so.IO, so.Version = o.io, version
	return so
}
