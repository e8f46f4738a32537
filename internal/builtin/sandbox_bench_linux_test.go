package builtin

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/testbin"
)

// BenchmarkShellSandbox is the sandbox's cost per shell call: `true`
// through the shell tool without the launcher, through the launcher with
// the sandbox off (subreaper only), and under the full sandbox. Beside
// wall time it reports child-cpu-ms/op, the CPU the call's processes used
// (user+system, from RUSAGE_CHILDREN): on a machine shared with other work
// that figure holds where wall time does not. ODEK_SANDBOX_BASELINE names
// another odek binary (an older build) to measure as the launcher in the
// same run, after odek's own, for A/B; its launcher must read the policy
// in this build's form (internal/sandbox launchform.go: odek before that
// form read JSON, and fails every call here with "bad policy").
func BenchmarkShellSandbox(b *testing.B) {
	b.Run("test-binary", benchShellSandbox)
	// The launcher odek users run is bin/odek, built as a release is, whose
	// start-up is far cheaper than this test binary's.
	own := proc.Launcher()
	defer proc.SetLauncher(own)
	proc.SetLauncher(testbin.Release(b, "odek", "./cmd/odek"))
	b.Run("odek-binary", benchShellSandbox)
	if base := os.Getenv("ODEK_SANDBOX_BASELINE"); base != "" {
		proc.SetLauncher(base)
		b.Run("baseline-binary", benchShellSandbox)
	}
}

func benchShellSandbox(b *testing.B) {
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
			before := childCPU()
			for b.Loop() {
				out, err := j.shell.Call(ctx, args)
				if err != nil || !strings.Contains(out, "exit code: 0") {
					b.Fatalf("%v %s", err, out)
				}
			}
			b.ReportMetric(float64(childCPU()-before)/float64(time.Millisecond)/float64(b.N), "child-cpu-ms/op")
		})
	}
}

// childCPU is the user and system time of this process's waited-for
// children so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
