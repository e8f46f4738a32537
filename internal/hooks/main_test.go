package hooks

import (
	"os"
	"testing"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/sandbox"
)

// TestMain lets the test binary be the sandbox launcher, as odek's binary
// is: project hooks run through it.
func TestMain(m *testing.M) {
	if sandbox.IsLauncher(os.Args) {
		os.Exit(sandbox.Main(os.Args))
	}
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	proc.SetLauncher(exe)
	os.Exit(m.Run())
}
