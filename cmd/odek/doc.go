// Command odek runs an LLM agent over tools served by MCP servers, for places
// where nobody watches: CI jobs, parent runs, terminals that want one answer.
//
// This package is the process only (main.go): the commands are
// internal/cli's, a run's assembly internal/agentrun's, what a run shows
// internal/runview's. It builds on Unix systems; elsewhere (Windows) main
// says the system is not supported (unsupported.go).
package main
