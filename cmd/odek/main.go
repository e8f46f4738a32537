// Command odek runs an LLM agent over tools served by MCP servers, for places
// where nobody watches: CI jobs, parent runs, terminals that want one answer.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run())
}

// run executes the command line and returns the exit code.
func run() int {
	if err := hardenProcess(); err != nil {
		// Refuse to run with secrets readable by every child.
		os.Stderr.WriteString("odek: cannot make the process non-dumpable: " + err.Error() + "\n")
		return exitSetup
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // the first Ctrl-C stops the run cleanly; a second one kills at once
	}()
	ios := systemIO()
	err := newRootCmd(ios).ExecuteContext(ctx)
	reportError(ios, err)
	return exitCode(ctx, err)
}
