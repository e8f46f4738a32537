package agentrun

import (
	"testing"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/builtin"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/plan"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/subagent"
)

// Only the plan tool promises trusted output: every other tool odek can
// offer (file and shell tools, artifact_read, delegate_tasks, MCP tools)
// brings outside bytes to the model and must taint the run. A tool that
// starts saying true here needs a reason in review.
func TestOnlyPlanHasTrustedOutput(t *testing.T) {
	cls, err := risk.New(risk.Options{Dir: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var tools []loop.Tool
	for _, b := range builtin.New(builtin.Options{Classifier: cls}) {
		tools = append(tools, b)
	}
	p := plan.New(plan.Options{})
	tools = append(tools, artifact.NewReadTool(nil), subagent.NewTool(subagent.Options{}),
		&mcpclient.ToolAdapter{ToolName: "t"}, p)
	for _, tool := range tools {
		to, ok := tool.(loop.TrustedOutputTool)
		trusted := ok && to.TrustedOutput()
		if want := tool == loop.Tool(p); trusted != want {
			t.Errorf("%T: trusted output = %v, want %v", tool, trusted, want)
		}
	}
}
