package builtin

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/sandbox"
)

// BenchmarkShellSandbox is the sandbox's cost per shell call: `true`
// through the shell tool without the launcher, through the launcher with
// the sandbox off (subreaper only), and under the full sandbox. Beside
// wall time it reports child-cpu-ms/op, the CPU the call's processes used
// (user+system, from RUSAGE_CHILDREN): on a machine shared with other work
// that figure holds where wall time does not.
func BenchmarkShellSandbox(b *testing.B) {
	b.Run("test-binary", benchShellSandbox)
	// The launcher odek users run is bin/odek, whose start-up is far
	// cheaper than this test binary's (fewer packages to initialise).
	bin := filepath.Join(b.TempDir(), "odek")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "../../cmd/odek")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build odek: %v\n%s", err, out)
	}
	own := proc.Launcher()
	proc.SetLauncher(bin)
	defer proc.SetLauncher(own)
	b.Run("odek-binary", benchShellSandbox)
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
