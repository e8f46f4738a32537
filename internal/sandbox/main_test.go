package sandbox

import (
	"os"
	"testing"
)

// TestMain runs the probe when the binary is started as one; the test
// binary is the launcher too, as odek's binary is (this package's init
// runs it).
func TestMain(m *testing.M) {
	if code, ok := probeEntry(os.Args); ok {
		os.Exit(code)
	}
	// A race-enabled launcher that exits 0 would sleep a second first
	// (the race detector's atexit_sleep_ms): every launch of these tests.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}
