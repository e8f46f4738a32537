//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// Main fails: the launcher is Linux-only.
func Main([]string) int {
	fmt.Fprintf(os.NewFile(StatusFD, "status"), "error: %v: the sandbox launcher needs Linux\n", ErrUnsupported)
	return 125
}
