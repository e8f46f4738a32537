package iostreams

import (
	"io"
	"os"
	"sync"
)

// PromptIn is where odek reads the operator's answers to its questions
// (a risky tool call, an MCP server or a hook to approve), and whether
// anyone is there to answer. Questions are written to stderr, so someone
// must be watching it: with stderr a terminal, the answer is read from
// stdin when it is one too, else, when stdin carries piped input (git diff
// | odek run ...), from the controlling terminal, as codex and claude do.
// With stderr captured (CI, a test harness, a log), or no controlling
// terminal, nobody can answer: false, and what would be asked is denied.
func (s *IOStreams) PromptIn() (io.Reader, bool) {
	switch {
	case !s.StderrTTY:
		return nil, false
	case s.StdinTTY:
		return s.In, true
	case s.OpenTTY == nil:
		return nil, false
	}
	tty, err := s.OpenTTY()
	if err != nil {
		return nil, false
	}
	return tty, true
}

// ttyPath is the controlling terminal of the process.
const ttyPath = "/dev/tty"

// openTTYOnce returns an OpenTTY that opens path at its first call and
// gives every call the same file or error: the questions of a run share
// one descriptor, kept for the process's life (close-on-exec, so no tool
// inherits it). A process without a controlling terminal gets ENXIO.
func openTTYOnce(path string) func() (io.Reader, error) {
	var (
		once sync.Once
		tty  *os.File
		err  error
	)
	return func() (io.Reader, error) {
		once.Do(func() { tty, err = os.Open(path) })
		if err != nil {
			return nil, err
		}
		return tty, nil
	}
}
