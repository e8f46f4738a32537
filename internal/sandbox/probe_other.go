//go:build !linux

package sandbox

// Probe reports no support: the sandbox is Linux-only.
func Probe() Support { return Support{} }
