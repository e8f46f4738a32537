package hooks

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/odek-run/odek/internal/proc"
)

// BenchmarkFire is the cost one trivial command hook adds to a tool call
// (issue 37: under 5 ms), beside its floor, the process alone started
// and waited for through proc: "true" runs as bash -c true (a builtin);
// "script" is a plain command, a #!/bin/sh script that exits 0, which
// odek starts without bash. Fire's figure minus its floor is odek's own
// part: the event encoded, the transcript brought up to date, the pipes,
// the answer read and merged.
func BenchmarkFire(b *testing.B) {
	dir := b.TempDir()
	script := filepath.Join(dir, "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name, command string
		floor         []string
	}{
		{"true", "true", []string{"bash", "-c", "true"}},
		{"script", hookJSON(script)[1 : len(hookJSON(script))-1], []string{script}},
	} {
		b.Run(bc.name+"/fire", func(b *testing.B) {
			c, _, err := Parse([]byte(`{"PreToolUse": [{"hooks": [{"type": "command", "command": ` + hookJSON(bc.command) + `}]}]}`))
			if err != nil {
				b.Fatal(err)
			}
			r := New(Options{Operator: c, Dir: dir, TempDir: b.TempDir(), OperatorEnv: os.Environ()})
			defer r.Close()
			in := Input{Event: PreToolUse, Tool: "shell", CallID: "c", Args: []byte(`{"command":"ls"}`)}
			for b.Loop() {
				if res := r.Fire(context.Background(), in); !res.Empty() || r.Counts().Failed > 0 {
					b.Fatal(res)
				}
			}
		})
		b.Run(bc.name+"/floor", func(b *testing.B) {
			for b.Loop() {
				p, err := proc.Start(proc.Spec{Path: bc.floor[0], Args: bc.floor[1:], Dir: dir})
				if err != nil {
					b.Fatal(err)
				}
				if err := p.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFireNoMatch is an event whose hooks' matchers all miss.
func BenchmarkFireNoMatch(b *testing.B) {
	c, _, _ := Parse([]byte(`{"PreToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "true"}]}]}`))
	r := New(Options{Operator: c, Dir: b.TempDir()})
	in := Input{Event: PreToolUse, Tool: "shell", Args: []byte(`{}`)}
	for b.Loop() {
		r.Fire(context.Background(), in)
	}
}
