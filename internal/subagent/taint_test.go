package subagent

import (
	"context"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// Once the run is tainted, every task's file says parent_trust untrusted, so
// a task asking for trusted runs untrusted; the result says so for that
// task, and subagent_spawned carries the effective trust.
func TestToolTaintedParentPassesUntrusted(t *testing.T) {
	const args = `{"tasks":[{"goal":"asks trusted","trust_level":"trusted"},{"goal":"asks nothing"}]}`
	cases := []struct {
		name       string
		parent     string
		tainted    func() bool
		wantParent string
		wantTrust  string // of the first task
		wantNote   bool
	}{
		{"no taint query", "", nil, "trusted", "trusted", false},
		{"not tainted", "", func() bool { return false }, "trusted", "trusted", false},
		{"tainted", "", func() bool { return true }, "untrusted", "untrusted", true},
		{"untrusted process", wire.Untrusted, func() bool { return false }, "untrusted", "untrusted", false},
		{"untrusted process, tainted", wire.Untrusted, func() bool { return true }, "untrusted", "untrusted", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reads := 0
			tool, sink, flush := newTestTool(t, "trust", func(o *Options) {
				o.ParentTrust = c.parent
				if c.tainted != nil {
					o.Tainted = func() bool { reads++; return c.tainted() }
				}
			})
			out := unwrap(t, call(t, tool, context.Background(), args))
			first, second, _ := strings.Cut(out, "─── Task 2")
			if !strings.Contains(first, "summary: parent_trust:"+c.wantParent+" trust_level:trusted") ||
				!strings.Contains(second, "summary: parent_trust:"+c.wantParent+" no trust_level\n") {
				t.Fatalf("task files do not say parent_trust %s:\n%s", c.wantParent, out)
			}
			if strings.Contains(first, taintedNote) != c.wantNote || strings.Contains(second, taintedNote) {
				t.Fatalf("taint note: want it on task 1 = %v:\n%s", c.wantNote, out)
			}
			if reads > 1 {
				t.Fatalf("Tainted read %d times in one call, want at most once", reads)
			}
			flush()
			trusts := map[string]int{}
			for _, ev := range sink.evs {
				if ev.Type == events.SubagentSpawned {
					trusts[ev.Data["trust"].(string)]++
				}
			}
			want := map[string]int{wire.Untrusted: 2}
			if c.wantTrust == wire.Trusted {
				want = map[string]int{wire.Trusted: 1, wire.Untrusted: 1}
			}
			if len(trusts) != len(want) || trusts[wire.Trusted] != want[wire.Trusted] || trusts[wire.Untrusted] != want[wire.Untrusted] {
				t.Fatalf("subagent_spawned trust counts = %v, want %v", trusts, want)
			}
		})
	}
}
