package proc_test

import (
	"os"
	"testing"

	"github.com/odek-run/odek/internal/proc"
)

// TestMain lets the test binary be the sandbox launcher, as odek's binary
// is (internal/sandbox's init runs the launcher when the binary is started
// as one), the processes of TestExecOnlySelf and TestArgv0, and the odek
// that TestLauncherDiesWithOdek kills.
func TestMain(m *testing.M) {
	if stage := os.Getenv(execOnlyStage); stage != "" {
		os.Exit(execOnlyChild(stage))
	}
	if stage := os.Getenv(argv0Stage); stage != "" {
		os.Exit(argv0Child(stage))
	}
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	proc.SetLauncher(exe)
	if os.Getenv(parentEnv) != "" {
		runParent()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
