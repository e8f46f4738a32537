package main

import "github.com/odek-run/odek/internal/childkey"

// hardenProcess reports whether odek is non-dumpable, as childkey's init
// made it before any other package of odek ran: a process of the same user
// (an MCP server odek spawned, say) can then no longer read
// /proc/<odek>/environ or /proc/<odek>/mem, where ODEK_API_KEY and the other
// secrets of odek's environment live, nor attach a debugger or get a core
// dump. Children start dumpable again (execve resets the flag) until their
// own childkey init runs.
func hardenProcess() error { return childkey.Hardened() }
