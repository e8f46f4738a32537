package runview

import (
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/loop"
)

// A progress line says what a call ran and how it ended: a command that
// exited non-zero is not ✓; a failure says why; a heartbeat says what runs
// and how long since anything moved.
func TestProgressSaysWhatWasDone(t *testing.T) {
	v, buf := testView(false, true, false, 0)
	at := time.Date(2026, 1, 1, 0, 2, 0, 0, time.UTC)
	v.Update(loop.Progress{Kind: loop.ProgressToolStart, Iteration: 2, Tool: "shell", Detail: "go test ./..."})
	v.Update(loop.Progress{Kind: loop.ProgressHeartbeat, Iteration: 2, Live: &liveness.Status{At: at, SinceProgress: 45 * time.Second,
		Running: []liveness.Activity{{Phase: liveness.PhaseTool, Tool: "shell", CallID: "call_1", Detail: "go test ./...", Started: at.Add(-2 * time.Minute)}}}})
	v.Update(loop.Progress{Kind: loop.ProgressToolDone, Iteration: 2, Tool: "shell", Detail: "go test ./...", HasExit: true, ExitCode: 1, Duration: 4200 * time.Millisecond})
	v.Update(loop.Progress{Kind: loop.ProgressToolDone, Iteration: 2, Tool: "shell", Detail: "go vet ./...", HasExit: true, Duration: time.Second})
	v.Update(loop.Progress{Kind: loop.ProgressToolDone, Iteration: 2, Tool: "read_file", Detail: "a.go", Failed: true, Error: "open a.go: no such file", Duration: time.Millisecond})
	v.Stop()
	out := buf.String()
	for _, want := range []string{
		`[2] → shell "go test ./..."` + "\n",
		`[2] … running shell "go test ./..." (call_1) for 2m0s; last progress 45s ago` + "\n",
		`[2] ✗ shell "go test ./..." exit 1 (4.2s)` + "\n",
		`[2] ✓ shell "go vet ./..." exit 0 (1s)` + "\n",
		`[2] ✗ read_file "a.go" failed: open a.go: no such file (1ms)` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
