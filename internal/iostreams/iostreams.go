// Package iostreams is every byte odek reads or writes and every fact of
// the process a command reads: the three streams, whether each is a
// terminal and how wide, the command line, the environment, the working
// directory and the clock. Nothing below cmd/ reads os.Stdin, os.Stdout,
// os.Stderr, os.Getenv, the working directory or time.Now directly: a
// command is handed an IOStreams, System() in the process and Test() (or
// one built over buffers) in tests.
package iostreams

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/odek-run/odek/internal/untrusted"
)

// IOStreams is every byte odek reads or writes, and the facts about the
// terminal it needs; tests build one over buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdinTTY  bool
	StdoutTTY bool // stdout is a terminal: untrusted text written there is sanitised
	StderrTTY bool
	Width     func() int // terminal width of stderr; 0 = unknown
	OutWidth  func() int // terminal width of stdout; nil or 0 = unknown
	// OpenTTY opens the controlling terminal to read answers from when
	// stdin is not one (System: /dev/tty, opened once); nil = none.
	OpenTTY func() (io.Reader, error)

	Args      []string // the command line without the program name; nil = os.Args[1:]
	LookupEnv func(string) (string, bool)
	Environ   func() []string // the whole environment, for the shell tool and sub-agents; nil = empty
	Getwd     func() (string, error)
	Chdir     func(string) error // -C; nil refuses it
	Now       func() time.Time
}

// System is the process's own streams, environment, working directory
// and clock.
func System() *IOStreams {
	errFd := int(os.Stderr.Fd())
	return &IOStreams{
		// Every line odek writes to stderr, a terminal or a log, passes
		// one filter: no escape sequence a message quotes acts there.
		In: os.Stdin, Out: os.Stdout, ErrOut: untrusted.NewTermWriter(os.Stderr),
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(errFd),
		Width:     func() int { return termWidth(errFd) },
		OpenTTY:   openTTYOnce(ttyPath),
		OutWidth:  func() int { return termWidth(int(os.Stdout.Fd())) },
		Args:      os.Args[1:],
		LookupEnv: os.LookupEnv,
		Environ:   os.Environ,
		Getwd:     os.Getwd,
		Chdir:     os.Chdir,
		Now:       time.Now,
	}
}

// ErrNoWorkingDirectory is Getwd's error in Test's streams until a test
// gives them a directory.
var ErrNoWorkingDirectory = errors.New("iostreams: no working directory in test streams")

// Test is streams over buffers, returned beside them: stdin (empty, not a
// terminal), stdout and stderr. No stream is a terminal and none has a
// width; the command line is empty (never the test binary's own); the
// environment is empty (Environ nil); Getwd fails with ErrNoWorkingDirectory and Chdir
// is refused until the test sets them; the clock is the real one. A test
// changes the fields it needs.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	ios = &IOStreams{
		In: in, Out: out, ErrOut: errOut,
		Width:     func() int { return 0 },
		OutWidth:  func() int { return 0 },
		Args:      []string{},
		LookupEnv: EnvMap(nil),
		Getwd:     func() (string, error) { return "", ErrNoWorkingDirectory },
		Now:       time.Now,
	}
	return ios, in, out, errOut
}

// termWidth is the width of the terminal on fd, 0 when it is none.
func termWidth(fd int) int {
	w, _, err := term.GetSize(fd)
	if err != nil {
		return 0
	}
	return w
}

// Env returns the value of an environment variable, "" when unset.
func (s *IOStreams) Env(name string) string {
	v, _ := s.LookupEnv(name)
	return v
}

// EnvMap is a LookupEnv over env, for tests: a name is set when it is a
// key, even with an empty value.
func EnvMap(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}
