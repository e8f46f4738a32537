package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary be the launcher, as odek's binary is.
func TestMain(m *testing.M) {
	if IsLauncher(os.Args) {
		os.Exit(Main(os.Args))
	}
	os.Exit(m.Run())
}
