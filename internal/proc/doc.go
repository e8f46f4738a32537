// Package proc starts every process odek runs — the shell tool's commands,
// MCP stdio servers, sub-agents — the same way: in a process group of its
// own, tracked by pid, and, when a sandbox.Policy is given, through the
// sandbox launcher (odek re-executed), which confines the process and acts
// as the child subreaper of its whole tree, so that nothing it starts
// outlives it. Stop asks the launcher to kill the tree, waits, and kills
// what is left by pid; KillAll does that for every live process at once.
//
// BecomeSubreaper makes odek itself the subreaper of last resort: orphans
// of a process that was killed before it could clean up re-parent to odek
// instead of init, and KillOrphans kills them by pid.
package proc
