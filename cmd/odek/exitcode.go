package main

import (
	"fmt"

	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/untrusted"
)

// reportError prints err as "odek: <err>" on stderr. Error text carries
// untrusted parts (server stderr tails, LLM error bodies), so it is made
// safe for a terminal first.
func reportError(ios *iostreams.IOStreams, err error) {
	if err == nil || exitcode.Silent(err) {
		return
	}
	fmt.Fprintf(ios.ErrOut, "odek: %s\n", untrusted.Terminal(err.Error()))
}
