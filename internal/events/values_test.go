package events

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Values of types the redactor does not know keep their structure (a JSON
// round trip), with every string inside redacted.
func TestRedactValueKeepsStructure(t *testing.T) {
	type inner struct{ Key string }
	type custom struct {
		Token string
		N     int
		In    inner
		List  []string
	}
	mask := func(s string) string { return strings.ReplaceAll(s, "sekrit", "[REDACTED]") }
	got := redactValue(custom{Token: "sekrit", N: 3, In: inner{Key: "a sekrit"}, List: []string{"sekrit"}}, mask)
	want := map[string]any{
		"Token": "[REDACTED]", "N": float64(3), "In": map[string]any{"Key": "a [REDACTED]"}, "List": []any{"[REDACTED]"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if got := redactValue(make(chan int), mask); !strings.Contains(got.(string), "unsupported type") {
		t.Fatalf("unmarshalable value = %v, want the redacted marshal error", got)
	}
}

// Shell assignments before the command (NAME=value) are skipped by Argv0;
// NAME follows the shell's rule, [A-Za-z_][A-Za-z0-9_]*, at every edge of
// those ranges.
func TestArgv0SkipsOnlyShellAssignments(t *testing.T) {
	for _, name := range []string{"a", "z", "A", "Z", "_", "x0", "x9", "_9", "aZ_09"} {
		if got := Argv0(name + "=1 ls"); got != "ls" {
			t.Errorf("Argv0(%q) = %q, want ls", name+"=1 ls", got)
		}
	}
	for _, name := range []string{"0x", "9", "`", "{", "@", "[", "x:", "a-b", "a.b", "é"} {
		cmd := name + "=1 ls"
		if got := Argv0(cmd); got != cmd[:len(cmd)-len(" ls")] {
			t.Errorf("Argv0(%q) = %q, want %q (not an assignment)", cmd, got, name+"=1")
		}
	}
}
