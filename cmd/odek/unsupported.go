//go:build !unix

package main

import (
	"fmt"
	"os"
	"runtime"
)

// main says the system is not supported and exits 3 (a setup error):
// odek's process groups, signals, orphan reaping and symlink-safe file
// access are Unix's (README.md, "Real use").
func main() {
	fmt.Fprintf(os.Stderr, "odek: %s is not supported: odek runs on Linux and macOS (see README.md)\n", runtime.GOOS)
	os.Exit(3)
}
