package runview

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
)

func testView(tty, noColor, quiet bool, width int) (*Progress, *bytes.Buffer) {
	var buf bytes.Buffer
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	ios := &iostreams.IOStreams{ErrOut: &buf, StderrTTY: tty, Width: func() int { return width },
		Now: func() time.Time { now = now.Add(100 * time.Millisecond); return now }}
	v := NewProgress(ios, noColor, quiet, start)
	return v, &buf
}

func feed(v *Progress) {
	u := budget.Usage{InputTokens: 1500, OutputTokens: 20}
	v.Update(loop.Progress{Kind: loop.ProgressThinking, Iteration: 1})
	v.Update(loop.Progress{Kind: loop.ProgressToolStart, Iteration: 1, Tool: "fs__read", Usage: u})
	v.Update(loop.Progress{Kind: loop.ProgressToolDone, Iteration: 1, Tool: "fs__read", Duration: 12 * time.Millisecond, Usage: u})
	v.Update(loop.Progress{Kind: loop.ProgressToolDone, Iteration: 1, Tool: "x", Failed: true, Duration: 3 * time.Millisecond, Usage: u})
	v.Stop()
}

func TestProgressPlain(t *testing.T) {
	v, buf := testView(false, false, false, 0)
	feed(v)
	out := buf.String()
	for _, want := range []string{"[1] thinking\n", "[1] → fs__read\n", "[1] ✓ fs__read ok (12ms)\n", "[1] ✗ x failed (3ms)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("plain output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\r") {
		t.Errorf("plain output has terminal controls: %q", out)
	}
}

func TestProgressTTY(t *testing.T) {
	v, buf := testView(true, false, false, 120)
	feed(v)
	out := buf.String()
	if !strings.Contains(out, "\r\x1b[K") || !strings.Contains(out, "\x1b[32m✓\x1b[0m") || !strings.Contains(out, "\x1b[31m✗\x1b[0m") {
		t.Errorf("tty output lacks status line or colours: %q", out)
	}
	if !strings.Contains(out, "odek · iteration 1 · ") || !strings.Contains(out, "1.5k in / 20 out tokens") || !strings.Contains(out, "running fs__read") {
		t.Errorf("status line lacks iteration, tokens or running tool: %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("stop did not clear the status line: %q", out[max(0, len(out)-40):])
	}
}

// The status line never wraps: it is cut to the terminal width.
func TestProgressTTYWidth(t *testing.T) {
	v, buf := testView(true, false, false, 60)
	feed(v)
	out := buf.String()
	for _, seg := range strings.Split(out, "\r\x1b[K") {
		line := strings.TrimSuffix(strings.SplitN(seg, "\n", 2)[0], "\x1b[0m")
		line = strings.TrimPrefix(line, "\x1b[2m")
		if n := len([]rune(line)); n > 60 {
			t.Errorf("status line of %d runes exceeds the 60-column terminal: %q", n, line)
		}
	}
	if !strings.Contains(out, "…") {
		t.Errorf("no status line was cut: %q", out)
	}
}

func TestProgressNoColorAndQuiet(t *testing.T) {
	v, buf := testView(true, true, false, 80)
	feed(v)
	if strings.Contains(buf.String(), "\x1b[3") || strings.Contains(buf.String(), "\x1b[2m") {
		t.Errorf("colours despite NO_COLOR: %q", buf.String())
	}
	q, qbuf := testView(true, false, true, 80)
	if q != nil {
		t.Fatal("quiet view is not nil")
	}
	feed(q) // nil view: no panic, no output
	q.Summary(&loop.Result{}, nil)
	if qbuf.Len() != 0 {
		t.Errorf("quiet view wrote %q", qbuf.String())
	}
}

// While a prompt is open nothing is drawn: no status line (neither from an
// update nor from a tick) and no permanent line; the lines wait and come
// out, in order, when the last prompt closes.
func TestProgressPausesForPrompts(t *testing.T) {
	v, buf := testView(true, true, false, 200)
	v.Update(loop.Progress{Kind: loop.ProgressThinking, Iteration: 1})
	v.Pause()
	v.Pause() // a second prompt queued behind the first
	v.mu.Lock()
	paused := buf.Len()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Errorf("pause left the status line on screen: %q", buf.String())
	}
	v.mu.Unlock()
	v.Update(loop.Progress{Kind: loop.ProgressToolDone, Iteration: 1, Tool: "shell", Denied: true})
	v.Warning("first held")
	v.mu.Lock()
	v.drawStatus() // what the ticker does
	n := buf.Len()
	v.mu.Unlock()
	if n != paused {
		t.Fatalf("the view wrote during a prompt: %q", buf.String()[paused:])
	}
	v.Resume()
	v.mu.Lock()
	n = buf.Len()
	v.mu.Unlock()
	if n != paused {
		t.Fatalf("the view wrote while a second prompt was still open")
	}
	v.Resume()
	v.Stop()
	out := buf.String()[paused:]
	denied, warned := strings.Index(out, "⊘ shell denied"), strings.Index(out, "odek: warning: first held")
	if denied < 0 || warned < denied || !strings.Contains(out[warned:], "odek · iteration 1") {
		t.Errorf("after the prompts: %q", out)
	}
}

// A run that ends inside a prompt (Ctrl-C) still prints what was held.
func TestProgressStopFlushesHeld(t *testing.T) {
	v, buf := testView(true, true, false, 200)
	v.Pause()
	v.Warning("held at stop")
	v.Stop()
	if !strings.Contains(buf.String(), "odek: warning: held at stop\n") {
		t.Errorf("stop lost a held line: %q", buf.String())
	}
}

// An MCP tool's reported progress shows beside it on the status line, and
// goes with it when the call ends.
func TestProgressTTYShowsMCPProgress(t *testing.T) {
	v, buf := testView(true, true, false, 200)
	n := NewNotices(nil)
	n.SetView(v)
	v.Update(loop.Progress{Kind: loop.ProgressToolStart, Iteration: 1, Tool: "fx__build"})
	n.Handle(mcpclient.Notice{Kind: mcpclient.NoticeProgress, Server: "fx", Tool: "build", Progress: 3, Total: 10})
	draw := func() string {
		v.mu.Lock()
		defer v.mu.Unlock()
		buf.Reset()
		v.drawStatus()
		return buf.String()
	}
	if out := draw(); !strings.Contains(out, "running fx__build (3/10)") {
		t.Errorf("status line %q lacks the tool's progress", out)
	}
	v.Update(loop.Progress{Kind: loop.ProgressToolDone, Iteration: 1, Tool: "fx__build"})
	if out := draw(); strings.Contains(out, "3/10") {
		t.Errorf("progress outlived the call: %q", out)
	}
	v.Stop()
}
