package sandbox

import (
	"os"
	"testing"
)

// BenchmarkRuleset is what a launch spends on Landlock: building the
// ruleset of a prepared policy over the real home (every rule opened and
// added), without enforcing it.
func BenchmarkRuleset(b *testing.B) {
	if Probe().LandlockABI == 0 {
		b.Skip("no Landlock")
	}
	home, _ := os.UserHomeDir()
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: b.TempDir(), Landlock: true, Protected: DefaultProtected(home, home+"/.odek")}
	p.Prepare()
	b.ReportMetric(float64(len(p.ReadTrees)+len(p.ReadFiles)+len(p.ListOnly)), "rules")
	for b.Loop() {
		fd, _, err := landlockConfig(p).NewRulesetFD(landlockRules(p)...)
		if err != nil {
			b.Fatal(err)
		}
		_ = closeFD(fd)
	}
}
