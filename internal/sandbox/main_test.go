package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary be the launcher, as odek's binary is.
func TestMain(m *testing.M) {
	if code, ok := probeEntry(os.Args); ok {
		os.Exit(code)
	}
	if IsLauncher(os.Args) {
		os.Exit(Main(os.Args))
	}
	// A race-enabled launcher that exits 0 would sleep a second first
	// (the race detector's atexit_sleep_ms): every launch of these tests.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}
