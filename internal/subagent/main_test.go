package subagent

import (
	"fmt"
	"os"
	"testing"
)

// TestMain refuses to act as a child. LocalRunner falls back to
// os.Executable() when it has no Path, and in a test that is this test
// binary: a change (or a mutant) that reaches the fallback would have every
// child run the whole suite again, each spawning more children, until the
// machine stops (a mutation run once left 2,600 of them). A child started
// this way exits at once with an error instead, which its test sees.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "subagent" {
		fmt.Fprintln(os.Stderr, "subagent.test: started as a child (LocalRunner.Path unset?); refusing to run the suite again")
		os.Exit(3)
	}
	os.Exit(m.Run())
}
