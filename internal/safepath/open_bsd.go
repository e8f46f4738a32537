//go:build unix && !linux

package safepath

// ForceWalk is a no-op: without openat2 every open is the component walk.
func ForceWalk(bool) bool { return true }

// openFD opens rel (clean, relative) below dirfd without following a
// symlink at any component, by the component walk.
func openFD(dirfd int, rel string, flags int) (int, error) {
	return walkBeneath(dirfd, rel, flags)
}
