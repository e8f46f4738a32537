package runview

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/untrusted"
)

// Progress shows a run's progress on stderr: a live status line on a TTY,
// one plain line per step otherwise, nothing with --quiet. Its methods are
// safe for concurrent use (tool calls report from their own goroutines) and
// on a nil view.
type Progress struct {
	mu      sync.Mutex
	out     io.Writer
	tty     bool
	color   bool
	now     func() time.Time
	width   func() int
	start   time.Time
	iter    int
	tokIn   int64
	tokOut  int64
	running []string
	toolPos map[string]string // a running MCP tool's last reported progress
	status  bool              // a status line is on screen
	done    chan struct{}
	// paused counts the prompts open on the terminal: while one is, the
	// status line is off and permanent lines wait in held, so nothing is
	// drawn over the question or the answer being typed.
	paused int
	held   []string
	mode   string // the interaction mode (narration.go)
}

// NewProgress is the view of a run started at start: nil with quiet (a
// nil view shows nothing), colour only on a terminal and without noColor.
func NewProgress(ios *iostreams.IOStreams, noColor, quiet bool, start time.Time) *Progress {
	if quiet {
		return nil
	}
	v := &Progress{out: ios.ErrOut, tty: ios.StderrTTY, color: ios.StderrTTY && !noColor, now: ios.Now, width: ios.Width, start: start}
	if v.tty {
		v.done = make(chan struct{})
		go v.tick(v.done)
	}
	return v
}

// StatusTick is how often the status line is redrawn.
const StatusTick = 200 * time.Millisecond

// tick redraws the status line so elapsed time moves while the model thinks.
func (v *Progress) tick(done <-chan struct{}) {
	t := time.NewTicker(StatusTick)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			v.mu.Lock()
			v.drawStatus()
			v.mu.Unlock()
		}
	}
}

// Update shows the loop's progress (loop.Options.Progress).
func (v *Progress) Update(p loop.Progress) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.iter, v.tokIn, v.tokOut = p.Iteration, p.Usage.InputTokens, p.Usage.OutputTokens
	switch p.Kind {
	case loop.ProgressThinking:
		if !v.tty {
			v.line(fmt.Sprintf("[%d] thinking", p.Iteration))
		}
	case loop.ProgressEmptyReply:
		v.line(fmt.Sprintf("[%d] %s the model sent an empty reply; asking again", p.Iteration, v.paint("33", "!")))
	case loop.ProgressReAsk:
		v.line(fmt.Sprintf("[%d] %s the final answer does not match the output schema; asking again", p.Iteration, v.paint("33", "!")))
	case loop.ProgressToolStart:
		v.running = append(v.running, untrusted.TerminalLine(p.Tool))
		if !v.tty {
			v.line(fmt.Sprintf("[%d] → %s", p.Iteration, callText(p)))
		}
	case loop.ProgressToolDone:
		v.removeRunning(untrusted.TerminalLine(p.Tool))
		mark, word := v.doneMark(p)
		v.line(fmt.Sprintf("[%d] %s %s %s (%s)", p.Iteration, mark, callText(p), word, roundDur(p.Duration)))
	case loop.ProgressHeartbeat:
		if !v.tty && p.Live != nil { // a terminal has the status line
			v.line(fmt.Sprintf("[%d] … %s", p.Iteration, liveText(p.Live)))
		}
	}
	v.drawStatus()
}

// ToolProgress records an MCP tool's reported progress for the status line.
func (v *Progress) ToolProgress(tool, progress string) {
	if v == nil || !v.tty {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.toolPos == nil {
		v.toolPos = map[string]string{}
	}
	v.toolPos[untrusted.TerminalLine(tool)] = progress
}

func (v *Progress) removeRunning(tool string) {
	delete(v.toolPos, tool)
	for i, t := range v.running {
		if t == tool {
			v.running = append(v.running[:i], v.running[i+1:]...)
			return
		}
	}
}

// line prints a permanent line, above the status line on a TTY; while a
// prompt is open it is held until the prompt closes.
func (v *Progress) line(s string) {
	v.emit(fmt.Sprintf("%s %s\n", v.paint("2", fmt.Sprintf("%6s", roundDur(v.now().Sub(v.start)))), s))
}

// emit writes text that ends with a newline, or holds it during a prompt.
func (v *Progress) emit(text string) {
	if v.paused > 0 {
		v.held = append(v.held, text)
		return
	}
	v.clearStatus()
	fmt.Fprint(v.out, text)
}

// Pause takes the status line off the terminal while a prompt is open;
// every Pause is ended by one Resume.
func (v *Progress) Pause() {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.clearStatus()
	v.paused++
}

// Resume ends a pause: the lines held meanwhile are printed and, once no
// prompt is open, the status line is back.
func (v *Progress) Resume() {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.paused > 0 {
		v.paused--
	}
	if v.paused > 0 {
		return
	}
	for _, text := range v.held {
		fmt.Fprint(v.out, text)
	}
	v.held = nil
	v.drawStatus()
}

func (v *Progress) drawStatus() {
	if !v.tty || v.paused > 0 {
		return
	}
	s := fmt.Sprintf("odek · iteration %d · %s · %s in / %s out tokens", v.iter, roundDur(v.now().Sub(v.start)), kilo(v.tokIn), kilo(v.tokOut))
	if len(v.running) > 0 {
		shown := make([]string, len(v.running))
		for i, t := range v.running {
			shown[i] = t
			if p, ok := v.toolPos[t]; ok {
				shown[i] += " (" + untrusted.TerminalLine(p) + ")"
			}
		}
		s += " · running " + strings.Join(shown, ", ")
	}
	if w := v.width(); w > 4 && len([]rune(s)) > w-1 {
		s = string([]rune(s)[:w-2]) + "…"
	}
	fmt.Fprintf(v.out, "\r\x1b[K%s", v.paint("2", s))
	v.status = true
}

func (v *Progress) clearStatus() {
	if v.status {
		fmt.Fprint(v.out, "\r\x1b[K")
		v.status = false
	}
}

func (v *Progress) paint(code, s string) string {
	if !v.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Retry says that a model call failed and will be retried, so a user
// watching a silent terminal knows why.
func (v *Progress) Retry(attempt int, wait time.Duration, err error) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.line(fmt.Sprintf("[%d] %s model call failed (attempt %d): %s; retrying in %s", v.iter, v.paint("33", "!"), attempt, untrusted.TerminalLine(err.Error()), roundDur(wait)))
	v.drawStatus()
}

// Warning prints "odek: warning: msg" above the status line; false on a nil
// view (--quiet), whose caller prints it itself.
func (v *Progress) Warning(msg string) bool {
	if v == nil {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.emit(fmt.Sprintf("odek: warning: %s\n", msg))
	v.drawStatus()
	return true
}

// Stop removes the status line; the view prints nothing live afterwards.
func (v *Progress) Stop() {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done != nil {
		close(v.done)
		v.done = nil
	}
	v.clearStatus()
	for _, text := range v.held { // a prompt the run ended in (Ctrl-C)
		fmt.Fprint(v.out, text)
	}
	v.held, v.paused = nil, 0
	v.tty = false
}

// Summary prints one closing line: how the run went and what it spent.
func (v *Progress) Summary(res *loop.Result, err error) {
	if v == nil || res == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	word := v.paint("32", "done")
	if err != nil {
		word = v.paint("31", "stopped")
	} else if res.Partial {
		word = v.paint("33", "partial")
	}
	u := res.Usage
	denied := ""
	if n := res.ToolCalls.Denied; n > 0 {
		denied = fmt.Sprintf(" (%d denied)", n)
	}
	fmt.Fprintf(v.out, "odek: %s · %d iteration(s) · %s · %s in / %s out tokens · %d tool call(s)%s\n",
		word, res.Iterations, roundDur(v.now().Sub(v.start)), kilo(u.Prompt()), kilo(u.OutputTokens),
		res.ToolCalls.OK+res.ToolCalls.Failed, denied)
}

func roundDur(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

func kilo(n int64) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}

// SubagentLine shows what a sub-agent reports while it runs: its start, the
// tools it calls and how it finished. The names come from the child, so they
// are shown on one bounded line.
func (v *Progress) SubagentLine(task int, l *wire.Line) {
	if v == nil {
		return
	}
	var s string
	switch l.Type {
	case wire.LineStarted:
		s = fmt.Sprintf("started (pid %d, depth %d)", l.PID, l.Depth)
	case wire.LineToolCall:
		s = "→ " + untrusted.OneLine(l.Name, 64)
	case wire.LineFinished:
		s = fmt.Sprintf("finished: %s · %d iteration(s) · %.1fs", untrusted.OneLine(l.Status, 32), l.Iterations, l.DurationS)
	default:
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.line(fmt.Sprintf("  ↳ task %d %s", task+1, s))
	v.drawStatus()
}
