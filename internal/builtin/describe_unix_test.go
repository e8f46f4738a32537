//go:build unix

package builtin

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/liveness"
)

// What the loop shows of a call: the shell's command and exit code, a file
// tool's path; a command's output is progress for the stall watchdog, its
// silence is not.
func TestShellTellsWhatItDid(t *testing.T) {
	tools, _, _ := setup(t)
	sh := tools["shell"]
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var late time.Time
	mon := liveness.New(func() time.Time {
		if !late.IsZero() {
			return late
		}
		return clock
	})
	for _, tc := range []struct {
		command  string
		exit     int
		progress bool
	}{
		{"echo building; exit 3", 3, true},
		{"sleep 0.01", 0, false},
	} {
		late = time.Time{}
		span := mon.Begin(liveness.Activity{Phase: liveness.PhaseTool, Tool: "shell"})
		ctx := liveness.With(context.Background(), span)
		late = clock.Add(time.Hour) // output during the call is stamped an hour on
		args := json.RawMessage(`{"command":` + quote(tc.command) + `,"description":"t"}`)
		if _, err := sh.Call(ctx, args); err != nil {
			t.Fatal(err)
		}
		if code, ok := span.ExitCode(); !ok || code != tc.exit {
			t.Errorf("%s: exit %d %t", tc.command, code, ok)
		}
		if got := mon.Status().SinceProgress == 0; got != tc.progress {
			t.Errorf("%s: output counted as progress %t, want %t", tc.command, got, tc.progress)
		}
		span.End()
		if field, v := sh.(interface {
			DescribeCall(json.RawMessage) (string, string)
		}).DescribeCall(args); field != "command" || v != tc.command {
			t.Errorf("described as %s %q", field, v)
		}
	}
	for name, args := range map[string]string{"read_file": `{"path":"a/b.go"}`, "write_file": `{"path":"a/b.go","content":""}`,
		"patch": `{"path":"a/b.go"}`, "list_dir": `{"path":"a/b.go"}`, "search_files": `{"path":"a/b.go","pattern":"x"}`, "glob": `{"pattern":"a/b.go"}`} {
		d, ok := tools[name].(interface {
			DescribeCall(json.RawMessage) (string, string)
		})
		if !ok {
			t.Errorf("%s does not describe its calls", name)
			continue
		}
		if field, v := d.DescribeCall(json.RawMessage(args)); field != "path" || v != "a/b.go" {
			t.Errorf("%s: %s %q", name, field, v)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
