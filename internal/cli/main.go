// Package cli is odek's command line: the cobra commands, one file each
// (newCmdX fills an options struct from the streams, arguments and flags;
// runX does the work: every check no flag parser makes, reading the task,
// then the run through internal/agentrun), and the one place an error
// becomes what the user reads on stderr and the exit code.
//
// Nothing here belongs to the process: cmd/odek's main makes it
// non-dumpable, runs the sandbox launcher, becomes the subreaper, handles
// the signals and then calls Main with the process's streams. Tests call
// Main over iostreams.Test().
package cli

import (
	"context"
	"fmt"

	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/untrusted"
)

// Main runs the command line of ios over its streams and returns the exit
// code: the whole CLI short of the process (signals, the sandbox launcher,
// orphans). ctx is the signal context: its cause is exitcode.ErrInterrupted
// after Ctrl-C or SIGTERM.
func Main(ctx context.Context, ios *iostreams.IOStreams) int {
	err := newCmdRoot(ios).ExecuteContext(ctx)
	reportError(ios, exitcode.Shown(ctx, err))
	return exitcode.Of(ctx, err)
}

// reportError prints err as "odek: <err>" on stderr. Error text carries
// untrusted parts (server stderr tails, LLM error bodies), so it is made
// safe for a terminal first.
func reportError(ios *iostreams.IOStreams, err error) {
	if err == nil || exitcode.Silent(err) {
		return
	}
	fmt.Fprintf(ios.ErrOut, "odek: %s\n", untrusted.Terminal(err.Error()))
}
