package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/odek-run/odek/internal/mcpclient"
)

// killServers is what a second interrupt does to the MCP servers; a var so
// tests can see it called.
var killServers = mcpclient.KillAll

// onInterrupt handles Ctrl-C (and SIGTERM): the first cancels the run, which
// then stops cleanly — tools cancelled, MCP servers shut down within about
// half a second (runState.close), the history kept. A second one does not
// wait for that: it kills every MCP server's process group and exits 130 at
// once, so no server outlives odek.
func onInterrupt(sigs <-chan os.Signal, cancel context.CancelFunc, stderr io.Writer, exit func(int)) {
	if _, ok := <-sigs; !ok {
		return
	}
	cancel()
	if _, ok := <-sigs; !ok {
		return
	}
	msg := "odek: interrupted again; exiting now"
	if names := killServers(); len(names) > 0 {
		msg += "; killed MCP servers: " + strings.Join(names, ", ")
	}
	fmt.Fprintln(stderr, msg)
	exit(exitInterrupted)
}
