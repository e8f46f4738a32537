package sandbox

import "os"

// The launcher takes the process over from this
// package's init rather than from main. Go initialises a package as soon
// as every package it imports is initialised (among those ready, the first
// by import path), so the packages of odek the launcher does not need (the
// CLI, the model clients, telemetry, the tools), which import this one or
// come later, never run their initialisers in a launcher: each shell call
// starts one, and those initialisers were most of what a start cost. Every binary that links this package is therefore a
// launcher when started with LauncherArg (odek's, and the test binaries
// that name themselves as the launcher), and nothing else changes for it.
func init() {
	if IsLauncher(os.Args) {
		os.Exit(Main(os.Args))
	}
}
