package agentsmd

import "fmt"

// skipped is the warning for a file that exists but is not read; why says
// what is wrong with it.
func skipped(path, why string) string {
	return fmt.Sprintf("%s: not read as project instructions: %s", path, why)
}
