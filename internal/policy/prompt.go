package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/untrusted"
)

// Terminal asks on a terminal: the question on out (stderr), one line of
// answer from in. Lines are read by one goroutine for the whole run, byte
// by byte, so nothing past an answer is consumed; a Ctrl-C (ctx) ends the
// wait at once.
type Terminal struct {
	in    io.Reader
	out   io.Writer
	once  sync.Once
	lines chan string
}

// NewTerminal asks on out and reads answers from in.
func NewTerminal(in io.Reader, out io.Writer) *Terminal {
	return &Terminal{in: in, out: out, lines: make(chan string)}
}

func (t *Terminal) read() {
	defer close(t.lines)
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := t.in.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				t.lines <- string(line)
				line = line[:0]
				continue
			}
			line = append(line, b[0])
		}
		if err != nil {
			if len(line) > 0 {
				t.lines <- string(line)
			}
			return
		}
	}
}

// Ask shows the call and waits for a, d, t or s (details, then ask again).
// End of input denies.
func (t *Terminal) Ask(ctx context.Context, q Question) (Answer, error) {
	t.once.Do(func() { go t.read() })
	fmt.Fprint(t.out, question(q))
	if q.Details {
		fmt.Fprint(t.out, details(q))
	}
	for {
		fmt.Fprintf(t.out, "  [a] approve once  [d] deny  [t] trust %s for this run  [s] show details\nChoice [a/d/t/s, default d]: ", q.Class)
		var line string
		var ok bool
		select {
		case line, ok = <-t.lines:
		case <-ctx.Done():
			fmt.Fprintln(t.out)
			return AnswerDeny, ctx.Err()
		}
		if !ok {
			fmt.Fprintln(t.out)
			return AnswerDeny, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "a", "approve", "y", "yes":
			return AnswerOnce, nil
		case "t", "trust":
			return AnswerTrustClass, nil
		case "s", "show", "details":
			fmt.Fprint(t.out, details(q))
		default:
			return AnswerDeny, nil
		}
	}
}

// question is the prompt's head: tool, class, reason, invocation. Every
// model-written string is made safe for the terminal.
func question(q Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nodek: %s wants to run (risk: %s — %s):\n", untrusted.OneLine(q.Tool, 64), q.Class, untrusted.OneLine(q.Reason, 200))
	for _, l := range strings.Split(untrusted.Terminal(q.What), "\n") {
		fmt.Fprintf(&b, "    %s\n", l)
	}
	return b.String()
}

// details is everything about the call: every class, the directory, and the
// full arguments.
func details(q Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  classes: %s\n", ClassNames(q.Classes))
	if q.Dir != "" {
		fmt.Fprintf(&b, "  working directory: %s\n", untrusted.OneLine(q.Dir, 512))
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, q.Args, "    ", "  ") != nil {
		pretty.Reset()
		pretty.Write(q.Args)
	}
	fmt.Fprintf(&b, "  arguments:\n    %s\n", untrusted.Terminal(pretty.String()))
	return b.String()
}

var _ Asker = (*Terminal)(nil)

// ClassNames lists classes for messages.
func ClassNames(cs []risk.Class) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.String()
	}
	return strings.Join(names, ", ")
}
