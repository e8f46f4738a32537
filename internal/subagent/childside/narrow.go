package childside

import (
	"slices"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// Narrowing (docs/SUBAGENTS.md): the child offers only tools in both its
// own set and the task's parent_tools, and decides every risk class at
// least as strictly as the task's parent_policy.

// IntersectTools is the child's tool set: its own enabled list (nil = every
// tool) narrowed to the parent's tools. With parent nil (no narrowing) it is
// own unchanged.
func IntersectTools(own []string, parent *[]string) []string {
	if parent == nil {
		return own
	}
	out := []string{} // non-nil: an empty set offers nothing
	for _, name := range *parent {
		if (own == nil || slices.Contains(own, name)) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// StricterClasses is own with every class the parent decides more strictly
// (allow < prompt < deny) taken from the parent.
func StricterClasses(own map[string]string, parent *wire.Policy) map[string]string {
	out := make(map[string]string, len(own))
	for k, v := range own {
		out[k] = v
	}
	if parent == nil {
		return out
	}
	for class, want := range parent.Classes {
		if have, ok := out[class]; !ok || slices.Index(wire.Decisions, want) > slices.Index(wire.Decisions, have) {
			out[class] = want
		}
	}
	return out
}
