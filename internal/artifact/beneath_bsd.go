//go:build unix && !linux

package artifact

import "os"

// openBeneath opens rel (clean, relative) below dir without following a
// symlink at any component, by the component walk.
func openBeneath(dir *os.File, rel string, flags int) (*os.File, error) {
	return walkBeneath(dir, rel, flags)
}
