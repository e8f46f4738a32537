package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/spf13/cobra"
)

// subagentOptions are what `odek subagent` is asked to do: RunE only
// fills them (streams, arguments, flags) and hands them to runSubagent.
type subagentOptions struct {
	io    *iostreams.IOStreams
	args  []string // none are taken: the task goes in --goal or --task
	child agentrun.Child
	// overrides holds -c and --timeout/--max-iter, which set
	// subagent.timeout_seconds and subagent.max_iterations by the settings
	// table's rules, as run's flags do (durations, bounds).
	overrides config.Overrides
	quiet     bool
	cassette  agentrun.Cassette
}

// newCmdSubagent is `odek subagent`: RunE fills subagentOptions and hands
// them to runF (runSubagent when nil).
func newCmdSubagent(ios *iostreams.IOStreams, runF func(context.Context, *subagentOptions) error) *cobra.Command {
	o := &subagentOptions{io: ios}
	cmd := &cobra.Command{
		Use:   "subagent (--goal <text> | --task <file>) [flags]",
		Short: "Run one delegated task as an isolated sub-agent and print a JSON result",
		Long: `Run one task as a sub-agent: the child process that delegate_tasks starts.

It never prompts (anything that would ask is denied), never gets more trust
than its task file allows (an untrusted task gets no MCP servers), never more
tools, policy or budget than the parent run the task file describes, and stops
at its timeout: a soft deadline first asks for a partial summary, the hard
one ends the run. stdout holds one JSON result object (with --stream, unless
the task file is protocol 1: typed progress lines, then the result), even
when the setup fails. See docs/SUBAGENTS.md.

With --output-schema FILE (or the task file's output_schema) the final
answer must be one JSON value matching the schema, held like run holds it
(re-asks within the budgets): the result then carries that value as output,
and an answer that still does not match ends the task as an error (exit 1).
The config's output_schema never applies to a sub-agent.

Exit codes: 0 success (also an iteration-cap partial), 1 task/model/tool
error, 2 timeout (hard, or a time-budget partial), 3 setup error (flags, task
file, config, profile), 4 execution budget exhausted, 130 interrupted.`,
		Example: `  odek subagent --goal "List the TODO comments in ./internal" --timeout 120
  odek subagent --task /tmp/odek-task-123.json --quiet --stream
  odek subagent --goal "Count the TODO comments in ./internal" --output-schema count.schema.json | jq .output`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runSubagent(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.child.Goal, "goal", "", "the task to do (untrusted: fenced in the prompt)")
	fl.StringVar(&o.child.TaskFile, "task", "", "a protocol-2 task file written by delegate_tasks")
	fl.StringVar(&o.child.Context, "context", "", "facts the task needs (with --goal)")
	fl.Var(&settingFlag{key: "subagent.timeout_seconds", name: "--timeout", kind: config.Seconds, o: &o.overrides},
		"timeout", "time before the hard stop: 90, 90s, 2m, 1h (default subagent.timeout_seconds, 1800; at most 1800)")
	fl.Var(&settingFlag{key: "subagent.max_iterations", name: "--max-iter", kind: config.Int, o: &o.overrides},
		"max-iter", "model turns, as run's --max-iter counts them (default subagent.max_iterations, 15; at most 100)")
	registerConfigFlag(cmd, &o.overrides)
	fl.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	fl.BoolVar(&o.child.Stream, "stream", false, "typed progress lines on stdout before the result (protocol 2)")
	fl.StringVar(&o.child.ParentSession, "parent-session", "", "the parent's session id, echoed in the result")
	fl.StringVar(&o.child.Profile, "profile", "", "sub-agent profile (overrides the task file's and subagent.default_profile)")
	fl.StringVar(&o.child.OutputSchema, "output-schema", "", "JSON Schema file the final answer must match; the result carries the value as output (overrides the task file's)")
	fl.StringVar(&o.child.KeyFile, "key-file", "", "read the API key from this file (a mounted Secret) instead of descriptor 3")
	fl.BoolVar(&o.child.ArtifactFrame, "artifact-frame", false, "after the result, send the artifacts on stdout as a frame (a pod, whose log is its only way back: docs/SCALE.md)")
	registerChildCassetteFlags(cmd, &o.cassette)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		hint := flagHint(c, err)
		err = flagError(err)
		if hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
		return childSetupError(ios, err)
	})
	return cmd
}

// flagError rewrites cobra's unknown-flag message into docs/SUBAGENTS.md's
// `unknown flag "<x>"`.
func flagError(err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "unknown flag: "); ok {
		return fmt.Errorf("unknown flag %q", rest)
	}
	if rest, ok := strings.CutPrefix(msg, "unknown shorthand flag: "); ok {
		if i := strings.LastIndex(rest, " in "); i >= 0 {
			return fmt.Errorf("unknown flag %q", rest[i+4:])
		}
	}
	return err
}

// childSetupError prints the setup error as the result object
// {"status":"error","error":…} on stdout, so a parent always gets JSON, and
// returns it as a setup error (exit 3).
func childSetupError(ios *iostreams.IOStreams, err error) error {
	runview.WriteChildResult(ios, &wire.Result{Status: wire.StatusError, Error: err.Error(), Usage: &wire.Usage{}, OdekVersion: version})
	return errclass.Wrap(errclass.SetupError, err)
}

// validate checks the flags that need no config.
func (o *subagentOptions) validate() error {
	c := o.child
	switch {
	case c.Goal != "" && c.TaskFile != "":
		return errors.New("--goal and --task are mutually exclusive")
	case strings.TrimSpace(c.Goal) == "" && c.TaskFile == "":
		return errors.New("either --goal or --task is required")
	case c.Context != "" && c.TaskFile != "":
		return errors.New("--context goes with --goal (a task file carries its own context)")
	}
	return nil
}

// runSubagent is the whole of `odek subagent` from its options: check
// them, set up, run, print the result.
func runSubagent(ctx context.Context, o *subagentOptions) error {
	ios := o.io
	if len(o.args) > 0 {
		return childSetupError(ios, fmt.Errorf("unexpected argument %q (the task goes in --goal or --task)", o.args[0]))
	}
	if err := o.validate(); err != nil {
		return childSetupError(ios, err)
	}
	runCtx, r, err := agentrun.Setup(ctx, agentrun.Options{IO: ios, Version: version, Overrides: o.overrides,
		Quiet: o.quiet, Cassette: o.cassette, Child: &o.child})
	if err != nil {
		return r.FailSetup(ctx, err)
	}
	defer r.Close(runCtx) // the result line goes last, after the relayed events
	return r.Execute(ctx, runCtx)
}
