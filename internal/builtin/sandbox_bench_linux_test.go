package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/sandbox"
)

// BenchmarkShellSandbox is the sandbox's cost per shell call: `true`
// through the shell tool without the launcher, through the launcher with
// the sandbox off (subreaper only), and under the full sandbox.
func BenchmarkShellSandbox(b *testing.B) {
	t := &testing.T{}
	for _, c := range []struct {
		name string
		pol  func(j *jail) *sandbox.Policy
	}{
		{"no-launcher", func(*jail) *sandbox.Policy { return nil }},
		{"launcher-off", func(*jail) *sandbox.Policy { return &sandbox.Policy{Mode: sandbox.ModeOff} }},
		{"workspace-write", func(j *jail) *sandbox.Policy {
			p := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Workspace: j.ws, TempDir: j.tmp,
				Landlock: sandbox.Probe().LandlockABI > 0, Protected: sandbox.DefaultProtected(j.home, j.odekHome)}
			if _, err := p.Prepare(); err != nil {
				panic(err)
			}
			return p
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			j := newJail(t, false, nil)
			j.t = t
			j.shell.(*shellTool).ws.sandbox = c.pol(j)
			args := json.RawMessage(`{"command":"true","description":"bench"}`)
			a, _ := j.shell.AssessRisk(args)
			ctx := risk.WithApproved(context.Background(), a)
			for b.Loop() {
				out, err := j.shell.Call(ctx, args)
				if err != nil || !strings.Contains(out, "exit code: 0") {
					b.Fatalf("%v %s", err, out)
				}
			}
		})
	}
}
