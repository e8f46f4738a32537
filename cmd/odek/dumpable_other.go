//go:build !linux

package main

// hardenProcess is a no-op where PR_SET_DUMPABLE does not exist.
func hardenProcess() error { return nil }
