package builtin

import (
	"os"
	"testing"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/testbin"
)

// TestMain lets the test binary be the sandbox launcher, as odek's binary
// is: proc re-executes it with sandbox.LauncherArg, and internal/sandbox's
// init runs the launcher.
func TestMain(m *testing.M) {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	proc.SetLauncher(exe)
	os.Exit(testbin.Main(m)) // BenchmarkShellSandbox builds odek
}
