// Package childkey is the first of odek's packages to run: its init makes
// the process non-dumpable and, in a sub-agent, takes the API key its parent
// hands over on file descriptor 3, before flag parsing, configuration or
// anything else of odek starts. A main package imports it; nothing else
// should, since importing it changes the process.
//
// It imports only errors and syscall, so that Go initialises it as soon as
// the syscall package is ready (the runtime and a few standard packages come
// first: docs/SUBAGENTS.md gives the order measured).
//
// The handover (docs/SUBAGENTS.md, "The key handover"): descriptor 3 is one
// end of a Unix seqpacket socket pair the parent made. Once the process is
// non-dumpable, init makes a fresh socket pair, sends one end to the parent
// over descriptor 3, closes descriptor 3 and reads the key from the other
// end; the parent writes the key only into a socket whose peer credentials
// name this process. A process that took descriptor 3 before this one became
// non-dumpable can therefore at most make the handover fail.
//
// Invariants:
//   - The key is never read unless the process is non-dumpable (Linux).
//   - Descriptor 3 is closed before the key is read, and is touched only
//     when ODEK_API_KEY_FD names it and it is a Unix seqpacket socket.
//   - ODEK_API_KEY_FD is removed from the process's environment, so nothing
//     this process starts is told to look at its descriptor 3.
//   - Every wait is bounded (Timeout).
package childkey
