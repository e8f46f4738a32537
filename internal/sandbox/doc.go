// Package sandbox confines the commands odek runs with the kernel's own
// mechanisms: no_new_privs, dropped capabilities, Landlock (writes only where
// the Policy says, reads everywhere but the protected paths, no TCP, no
// signals or abstract sockets out of the domain) and a seccomp filter (with
// the network off, socket() for anything but AF_UNIX fails).
//
// It works by re-execution: the parent starts its own executable with
// LauncherArg, the Policy in its launch form (launchform.go) and the
// target argv (Command builds that argv); that process runs Main, the
// launcher. One locked thread of the launcher applies the Policy to itself
// and forks the target: the target is the launcher's child, and that
// thread, the only one of the launcher in the command's domain, is one the
// seccomp filter keeps the command from naming, so the command cannot
// signal the launcher. The launcher acts as the child
// subreaper of everything the target starts, and when the target exits (or the launcher is told to stop)
// kills every remaining descendant by pid before it exits itself. So a
// command's daemons, setsid jobs and double forks never outlive it.
//
// The package is a leaf: it prints nothing but the launcher's own one-line
// failures to its status pipe. Its init does nothing but run the launcher
// when the process was started as one (dispatch.go): so a launcher skips
// the initialisers of every package initialised after this one, which is
// most of odek, and starts as fast as the binary can.
package sandbox
