package hooks

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkFireTrivialHook is the cost one trivial command hook adds to a
// tool call (issue 37: under 5 ms): bash started, the event written to its
// stdin, exit 0 read back, no sandbox (an operator hook).
func BenchmarkFireTrivialHook(b *testing.B) {
	c, _, err := Parse([]byte(`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}`))
	if err != nil {
		b.Fatal(err)
	}
	r := New(Options{Operator: c, Dir: b.TempDir(), TempDir: b.TempDir()})
	defer r.Close()
	in := Input{Event: PreToolUse, Tool: "shell", CallID: "c", Args: []byte(`{"command":"ls"}`)}
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if res := r.Fire(ctx, in); !res.Empty() {
			b.Fatal(res)
		}
	}
}

// BenchmarkFireNoMatch is an event whose hooks' matchers all miss.
func BenchmarkFireNoMatch(b *testing.B) {
	c, _, _ := Parse([]byte(`{"PreToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "true"}]}]}`))
	r := New(Options{Operator: c, Dir: b.TempDir()})
	in := Input{Event: PreToolUse, Tool: "shell", Args: []byte(`{}`)}
	for range b.N {
		r.Fire(context.Background(), in)
	}
}

// BenchmarkBashTrue is the floor: bash -c true started and waited for by
// os/exec, nothing else.
func BenchmarkBashTrue(b *testing.B) {
	for range b.N {
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
