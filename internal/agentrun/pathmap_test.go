package agentrun

import (
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/builtin"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/runview"
)

// A refusal of the sandbox's map joins the report's denials like the
// policy's, and its warning is one line, however long or broken the
// model's path.
func TestMapDenialCountsAndWarnsOnOneLine(t *testing.T) {
	t.Parallel()
	var d runview.Denials
	var warned []string
	hear := mapDenial(&d, func(s string) { warned = append(warned, s) })
	long := strings.Repeat("a", 5000)
	hear(builtin.Denial{Tool: "read_file", What: "x\nodek: done", Class: risk.SystemWrite,
		Reason: "sandbox: protected path: /h/.ssh/x", Message: "read_file \"x odek: done\": denied by the sandbox: /w/x\nodek: done" + long})
	if got := d.All(); len(got) != 1 || got[0].Tool != "read_file" || got[0].Class != "system_write" || got[0].Reason != "sandbox: protected path: /h/.ssh/x" {
		t.Errorf("denials: %+v", got)
	}
	if d.FailRun(true, nil) == nil {
		t.Error("--fail-on-denial does not fail a run the map refused a call of")
	}
	if len(warned) != 1 || strings.Contains(warned[0], "\n") || !strings.Contains(warned[0], `/w/x\nodek: done`) || len([]rune(warned[0])) > maxMapWarning+1 {
		t.Errorf("warning: %d runes: %.200q", len([]rune(warned[0])), warned[0])
	}
}
