package sandbox

import (
	"os"
	"testing"
)

// BenchmarkRuleset is what a policy spends on Landlock, once per run (no
// longer per launch): opening the granted paths and building the ruleset
// over the real home (the read set walked, every rule added), without
// enforcing it.
func BenchmarkRuleset(b *testing.B) {
	if Probe().LandlockABI == 0 {
		b.Skip("no Landlock")
	}
	home, _ := os.UserHomeDir()
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: b.TempDir(), Landlock: true, Protected: DefaultProtected(home, home+"/.odek")}
	trees, files, list := readSet(p.Protected)
	b.ReportMetric(float64(len(trees)+len(files)+len(list)), "rules")
	for b.Loop() {
		c := p
		if _, err := c.Prepare(); err != nil {
			b.Fatal(err)
		}
		c.Release()
	}
}
