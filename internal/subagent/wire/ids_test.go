package wire

import (
	"regexp"
	"testing"
)

func TestIDsAndHash(t *testing.T) {
	id := NewTaskID()
	if !regexp.MustCompile(`^task-[0-9a-f]{16}$`).MatchString(id) || !IsTaskID(id) || id == NewTaskID() {
		t.Fatalf("task id %q", id)
	}
	for _, bad := range []string{"task-0123", "task-0123456789ABCDEF", "x-0123456789abcdef", "task-0123456789abcdef/"} {
		if IsTaskID(bad) {
			t.Errorf("IsTaskID(%q)", bad)
		}
	}
	// sha256("hello") = 2cf24dba5fb0a30e26e83b2ac5b9e29e…
	if got := GoalHash("hello"); got != "2cf24dba5fb0a30e" {
		t.Fatalf("GoalHash = %s", got)
	}
}

func TestParseDepth(t *testing.T) {
	for in, want := range map[string]int{"": 0, "1": 1, " 3 ": 3, "-1": 0, "x": 0, "1.5": 0} {
		if got := ParseDepth(in); got != want {
			t.Errorf("ParseDepth(%q) = %d, want %d", in, got, want)
		}
	}
}
