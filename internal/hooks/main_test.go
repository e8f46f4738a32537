package hooks

import (
	"os"
	"testing"

	"github.com/odek-run/odek/internal/proc"
)

// TestMain lets the test binary be the sandbox launcher, as odek's binary
// is: project hooks run through it (internal/sandbox's init runs the
// launcher when the binary is started as one).
func TestMain(m *testing.M) {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	proc.SetLauncher(exe)
	os.Exit(m.Run())
}
