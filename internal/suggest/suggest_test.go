package suggest

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"modle", "model", 1}, {"kitten", "sitting", 3}, {"é", "e", 1}, {"ab", "ba", 1},
		{"", "abc", 3}, {"run", "run", 0}, {"rnu", "run", 1}, {"runn", "run", 1}, {"tool", "tools", 1},
	} {
		if got := Distance(tt.a, tt.b); got != tt.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}

func TestByDistance(t *testing.T) {
	got := strings.Join(ByDistance("wc__word_cont", []string{"artifact_read", "wc__word_count", "plan", "wc__lines"}), ",")
	if got != "wc__word_count,wc__lines,artifact_read,plan" {
		t.Fatalf("ByDistance = %s", got)
	}
}

func TestNearestEdges(t *testing.T) {
	for _, tt := range []struct {
		name  string
		known []string
		want  string
	}{
		{"sxrem", []string{"stream"}, "stream"}, // 5 characters: two edits allowed
		{"mxdl", []string{"model"}, ""},         // 4 characters: one edit only
		{"modl", []string{"model"}, "model"},
		{"ab", []string{"bb", "aa"}, "aa"}, // a tie goes to the first in order
	} {
		if got := Nearest(tt.name, tt.known); got != tt.want {
			t.Errorf("Nearest(%q, %v) = %q, want %q", tt.name, tt.known, got, tt.want)
		}
	}
}

func TestNearest(t *testing.T) {
	known := []string{"model", "mode", "stream", "system"}
	for _, tt := range []struct{ name, want string }{
		{"modle", "mode"},    // a tie (one edit each) goes to the alphabetically first
		{"MODEL", "model"},   // case is ignored
		{"mdl", ""},          // short names get one edit only
		{"sytsem", "system"}, // two edits for longer names
		{"xyz", ""},
	} {
		if got := Nearest(tt.name, known); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A unit left off finds the setting that has it, when only one does.
func TestNearestFindsTheUnit(t *testing.T) {
	known := []string{"limits.max_runtime_seconds", "limits.max_tool_calls", "llm.idle_timeout_seconds", "subagent.timeout_seconds", "subagent.timeout_grace_seconds"}
	for _, c := range []struct{ name, want string }{
		{"limits.max_runtime", "limits.max_runtime_seconds"},
		{"LIMITS.MAX_RUNTIME", "limits.max_runtime_seconds"},
		{"llm.idle_timeout", "llm.idle_timeout_seconds"},
		{"subagent.timeout", ""}, // two settings extend it: no guess
		{"limits", ""},
		{"max", ""},
		{"limits.max_tool_call", "limits.max_tool_calls"}, // an edit still wins
	} {
		if got := Nearest(c.name, known); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
