package cli

import (
	"context"
	"slices"
	"testing"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
)

// parse runs cmd over args with its runF capturing the options instead of
// running anything.
func parse(t *testing.T, cmd *cobra.Command, args ...string) {
	t.Helper()
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

// Each command's RunE only fills its options: the flags and arguments
// reach the options struct its run function reads, and nothing runs.
func TestCommandsFillTheirOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var ro *runOptions
	parse(t, newCmdRun(ios, func(_ context.Context, o *runOptions) error { ro = o; return nil }),
		"--output", "json", "--events-jsonl", "ev.jsonl", "--session", "-q", "--fail-on-denial", "--full-auto",
		"--task-file", "t.md", "--replay", "cas", "--replay-mode", "lenient", "--max-iter", "7", "--external-ref", "issue=https://x/1", "extra")
	r := ro.run
	if r.Output != "json" || r.EventsPath != "ev.jsonl" || !r.Session || !r.Quiet || !r.FailOnDenial || !r.FullAuto ||
		ro.taskFile != "t.md" || r.Cassette.Replay != "cas" || r.Cassette.Mode != "lenient" ||
		!slices.Equal(ro.args, []string{"extra"}) || !slices.Equal(ro.sessFlag.refs, []string{"issue=https://x/1"}) || ro.io != ios {
		t.Errorf("run options: %+v, args %q", r, ro.args)
	}
	if !r.Overrides.Has("max_iterations") {
		t.Errorf("--max-iter did not reach the overrides")
	}

	var co *continueOptions
	parse(t, newCmdContinue(ios, func(_ context.Context, o *continueOptions) error { co = o; return nil }),
		"--id", "", "--any-dir", "--model", "m", "go on")
	if !co.idGiven || co.id != "" || !co.anyDir || !co.modelGiven || !slices.Equal(co.args, []string{"go on"}) {
		t.Errorf("continue options: %+v", co)
	}

	var so *subagentOptions
	parse(t, newCmdSubagent(ios, func(_ context.Context, o *subagentOptions) error { so = o; return nil }),
		"--goal", "g", "--context", "c", "--stream", "--profile", "p", "--parent-session", "s", "--output-schema", "f.json",
		"--timeout", "90", "--quiet", "--record", "cas", "--cassette-stream", "sub-1")
	c := so.child
	if c.Goal != "g" || c.Context != "c" || !c.Stream || c.Profile != "p" || c.ParentSession != "s" || c.OutputSchema != "f.json" ||
		!so.quiet || so.cassette.Record != "cas" || so.cassette.Stream != "sub-1" || !so.overrides.Has("subagent.timeout_seconds") {
		t.Errorf("subagent options: %+v %+v", so, c)
	}

	var to *toolsOptions
	parse(t, newCmdTools(ios, func(_ context.Context, o *toolsOptions) error { to = o; return nil }), "--json", "--long", "--no-tool", "shell")
	if !to.json || !to.long || !to.overrides.Has("tools.disabled") {
		t.Errorf("tools options: %+v", to)
	}

	var io *initOptions
	parse(t, newCmdInit(ios, func(_ context.Context, o *initOptions) error { io = o; return nil }), "--global", "--force")
	if !io.global || !io.force {
		t.Errorf("init options: %+v", io)
	}

	var ao *approvalsRevokeOptions
	parse(t, newCmdApprovalsRevoke(ios, func(_ context.Context, o *approvalsRevokeOptions) error { ao = o; return nil }), "fs")
	if ao.server != "fs" || ao.all {
		t.Errorf("revoke options: %+v", ao)
	}

	var clo *artifactsCleanupOptions
	parse(t, newCmdArtifactsCleanup(ios, func(_ context.Context, o *artifactsCleanupOptions) error { clo = o; return nil }), "12")
	if !slices.Equal(clo.hours, []string{"12"}) {
		t.Errorf("artifacts cleanup options: %+v", clo)
	}
}
