package main

import "golang.org/x/sys/unix"

// hardenProcess makes odek non-dumpable before any child starts: a process
// of the same user (an MCP server odek spawned, say) can then no longer read
// /proc/<odek>/environ or /proc/<odek>/mem, where ODEK_API_KEY and the other
// secrets of odek's environment live, nor attach a debugger or get a core
// dump. Children start dumpable again (execve resets the flag), so this
// costs them nothing.
func hardenProcess() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
