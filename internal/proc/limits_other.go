//go:build !linux

package proc

func noteLimits() {}

// RestoreLimits has nothing to restore where prlimit(2) is missing.
func RestoreLimits() string { return "" }
