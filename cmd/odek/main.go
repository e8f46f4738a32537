//go:build unix

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/cli"
	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/iostreams"
	procs "github.com/odek-run/odek/internal/proc"
)

func main() {
	os.Exit(run())
}

// run is the process around the command line: non-dumpable, the
// subreaper, the signals; then the CLI (internal/cli) over the process's
// streams. It returns the exit code. The sandbox launcher never gets here:
// internal/sandbox's init runs it, before most of odek is initialised.
func run() int {
	if err := hardenProcess(); err != nil {
		// Refuse to run with secrets readable by every child.
		os.Stderr.WriteString("odek: cannot make the process non-dumpable: " + err.Error() + "\n")
		return exitcode.Setup
	}
	if exe, err := procs.SelfExe(); err == nil {
		procs.SetLauncher(exe) // the running image, never a path a command could replace
	}
	// Orphans of anything odek starts re-parent to odek, which kills them.
	_ = procs.BecomeSubreaper()
	defer procs.KillOrphans()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	// Installing the handler waits for the runtime to start a signal
	// thread (0.2-0.3 ms): it is done beside the command line's parsing
	// and the config's loading, and nothing odek starts may run before it.
	handled := make(chan struct{})
	go func() {
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		close(handled)
	}()
	procs.BeforeStart(func() { <-handled })
	defer func() { <-handled; signal.Stop(sigs) }()
	go agentrun.OnInterrupt(sigs, func() { cancel(exitcode.ErrInterrupted) }, os.Stderr, os.Exit)
	return cli.Main(ctx, iostreams.System())
}
