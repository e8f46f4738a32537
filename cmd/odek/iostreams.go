package main

import (
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

	Args      []string // the command line without the program name; nil = os.Args[1:]
	LookupEnv func(string) (string, bool)
	Environ   func() []string // the whole environment, for the shell tool and sub-agents; nil = empty
	Getwd     func() (string, error)
	Chdir     func(string) error // -C; nil refuses it
	Now       func() time.Time
}

func systemIO() *IOStreams {
	errFd := int(os.Stderr.Fd())
	return &IOStreams{
		// Every line odek writes to stderr, a terminal or a log, passes
		// one filter: no escape sequence a message quotes acts there.
		In: os.Stdin, Out: os.Stdout, ErrOut: untrusted.NewTermWriter(os.Stderr),
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(errFd),
		Width:     func() int { return termWidth(errFd) },
		OutWidth:  func() int { return termWidth(int(os.Stdout.Fd())) },
		Args:      os.Args[1:],
		LookupEnv: os.LookupEnv,
		Environ:   os.Environ,
		Getwd:     os.Getwd,
		Chdir:     os.Chdir,
		Now:       time.Now,
	}
}

// termWidth is the width of the terminal on fd, 0 when it is none.
func termWidth(fd int) int {
	w, _, err := term.GetSize(fd)
	if err != nil {
		return 0
	}
	return w
}

// env returns the value of an environment variable, "" when unset.
func (s *IOStreams) env(name string) string {
	v, _ := s.LookupEnv(name)
	return v
}

// termText makes untrusted text (server output, error bodies, model text)
// safe for a terminal, keeping its lines: see untrusted.Terminal.
func termText(s string) string { return untrusted.Terminal(s) }

// termLine is termText for text shown on one line (tool names, one-line
// descriptions, errors inside a progress line).
func termLine(s string) string { return untrusted.OneLine(untrusted.Terminal(s), 0) }
