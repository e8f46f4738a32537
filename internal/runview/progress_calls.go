package runview

import (
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/untrusted"
)

// callText is a call as a progress line shows it: the tool, and what it
// works on when the tool says (`shell "go test ./..."`). The loop has
// redacted and cut the detail; it is made safe for the terminal here.
func callText(p loop.Progress) string {
	if p.Detail == "" {
		return untrusted.TerminalLine(p.Tool)
	}
	return untrusted.TerminalLine(p.Tool) + ` "` + untrusted.TerminalLine(p.Detail) + `"`
}

// doneMark is how a finished call went: ✓ ok, ✗ failed (with its error),
// ⊘ denied; a command that exited non-zero is ✗ with its exit code.
func (v *Progress) doneMark(p loop.Progress) (mark, word string) {
	switch {
	case p.Denied:
		return v.paint("33", "⊘"), "denied"
	case p.Failed && p.Error != "":
		return v.paint("31", "✗"), "failed: " + untrusted.TerminalLine(p.Error)
	case p.Failed:
		return v.paint("31", "✗"), "failed"
	case p.HasExit && p.ExitCode != 0:
		return v.paint("31", "✗"), fmt.Sprintf("exit %d", p.ExitCode)
	case p.HasExit:
		return v.paint("32", "✓"), "exit 0"
	}
	return v.paint("32", "✓"), "ok"
}

// liveText is a heartbeat for a log without a status line: what runs, for
// how long, and how long ago anything last moved.
func liveText(st *liveness.Status) string {
	var what []string
	for _, a := range st.Running {
		what = append(what, fmt.Sprintf("%s for %s", untrusted.TerminalLine(a.String()), roundDur(st.At.Sub(a.Started))))
	}
	s := "running " + strings.Join(what, ", ")
	switch {
	case st.Prompting:
		s = "waiting for an answer at the prompt"
	case len(what) == 0:
		s = "between steps"
	}
	return fmt.Sprintf("%s; last progress %s ago", s, roundDur(st.SinceProgress))
}
