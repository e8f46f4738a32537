package subagent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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
	code := m.Run()
	removeKeyrace()
	os.Exit(code)
}

// keyrace is testdata/keyrace, built once per test binary run by the first
// test that needs it (the key handover's tests; it builds on Linux only).
var keyrace struct {
	once     sync.Once
	dir, bin string
	err      error
}

func buildKeyrace(t *testing.T) string {
	t.Helper()
	keyrace.once.Do(func() {
		keyrace.dir, keyrace.err = os.MkdirTemp("", "odek-keyrace")
		if keyrace.err == nil {
			keyrace.err = os.Chmod(keyrace.dir, 0o755) // nobody runs it from here
		}
		if keyrace.err != nil {
			return
		}
		bin := filepath.Join(keyrace.dir, "keyrace")
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./testdata/keyrace")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			keyrace.err = fmt.Errorf("go build keyrace: %v\n%s", err, out)
			return
		}
		keyrace.bin = bin
	})
	if keyrace.err != nil {
		t.Fatal(keyrace.err)
	}
	return keyrace.bin
}

// removeKeyrace removes what buildKeyrace built.
func removeKeyrace() {
	if keyrace.dir != "" {
		_ = os.RemoveAll(keyrace.dir)
	}
}
