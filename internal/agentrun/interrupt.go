package agentrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/exitcode"
	procs "github.com/odek-run/odek/internal/proc"

	"github.com/odek-run/odek/internal/mcpclient"
)

// killServers is what a second interrupt does to the MCP servers; a var so
// tests can see it called.
var killServers = mcpclient.KillAll

// killProcesses kills every other process odek started through proc (shell
// commands, with their trees); it does not wait.
func killProcesses() { procs.KillAll() }

// exitMu is held by a second interrupt from before it kills the MCP servers
// until the process exits. Those kills let the first interrupt's shutdown
// (waiting for the same servers) finish at that moment; reportStopped then
// waits on exitMu instead of saying more, so the user reads one account of
// what was stopped and odek exits once, with 130.
var exitMu sync.Mutex

// reportStopped says which MCP servers the first interrupt's shutdown
// stopped, unless a second interrupt is already exiting (it then blocks
// until that exit).
func reportStopped(w io.Writer, names []string) {
	if len(names) == 0 || w == nil {
		return
	}
	exitMu.Lock()
	defer exitMu.Unlock()
	fmt.Fprintf(w, "odek: interrupted; stopped MCP servers: %s\n", strings.Join(names, ", "))
}

// OnInterrupt handles Ctrl-C (and SIGTERM): the first cancels the run, which
// then stops cleanly — tools cancelled, MCP servers shut down within about
// half a second (runServers.close), the history kept. A second one does not
// wait for that: it kills every MCP server's process group and exits 130 at
// once, so no server outlives odek.
func OnInterrupt(sigs <-chan os.Signal, cancel context.CancelFunc, stderr io.Writer, exit func(int)) {
	if _, ok := <-sigs; !ok {
		return
	}
	cancel()
	if _, ok := <-sigs; !ok {
		return
	}
	exitMu.Lock()
	defer exitMu.Unlock() // only reached when exit returns: in tests
	msg := "odek: interrupted again; exiting now"
	if names := killServers(); len(names) > 0 {
		msg += "; killed MCP servers: " + strings.Join(names, ", ")
	}
	fmt.Fprintln(stderr, msg)
	killProcesses()
	exit(exitcode.Interrupted)
}
