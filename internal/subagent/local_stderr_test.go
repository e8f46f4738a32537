package subagent

import (
	"os"
	"strings"
	"testing"
	"time"
)

// drained runs drainStderr over a pipe that holds data and is then closed,
// and returns the process it filled.
func drained(t *testing.T, data string) *localProcess {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString(data); err != nil { // below the pipe's 64 KiB: no reader needed
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := &localProcess{stderrDone: make(chan struct{})}
	go p.drainStderr(r)
	select {
	case <-p.stderrDone:
	case <-time.After(10 * time.Second): // a bound, not a wait: EOF ends the drain at once
		t.Fatal("drainStderr did not return at EOF")
	}
	p.mu.Lock() // the drain's last writes happen before stderrDone closes
	defer p.mu.Unlock()
	return p
}

// TestDrainStderrKeepsHeadAndTail: of a stderr longer than one read, the
// first 512 and the last 1024 bytes are kept and every byte is counted.
func TestDrainStderrKeepsHeadAndTail(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 5000; i++ {
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), i%7+1) + "\n")
	}
	data := b.String()
	p := drained(t, data)
	if p.total != len(data) {
		t.Errorf("total %d, want %d", p.total, len(data))
	}
	if string(p.head) != data[:stderrHeadBytes] {
		t.Errorf("head is %d bytes, not the first %d:\n%q", len(p.head), stderrHeadBytes, p.head)
	}
	if string(p.tail) != data[len(data)-stderrTailBytes:] {
		t.Errorf("tail is %d bytes, not the last %d:\n%q", len(p.tail), stderrTailBytes, p.tail)
	}
}

// TestLocalStderrTail: a short stderr is shown whole on one line; a long one
// as its first 200 and last 200 runes, each cut marked.
func TestLocalStderrTail(t *testing.T) {
	x, z := strings.Repeat, "z"
	tests := []struct{ name, stderr, want string }{
		{"short", "fatal:\tboom\n", "fatal: boom"},
		{"empty", "", ""},
		// 512 bytes is still short: all of it, not its head and tail.
		{"512 bytes", x("w ", 256), strings.TrimSpace(x("w ", 256))},
		{"long", "panic: it broke\n" + x("x", 4000) + "\nerror: last words",
			"panic: it broke " + x("x", 184) + "… … …" + x("x", 182) + " error: last words"},
		// A tail of exactly 200 runes is not cut; the head is what the
		// first 512 bytes hold (here 112 runes).
		{"tail of 200 runes", x(" ", 400) + x(z, 200), x(z, 112) + " … " + x(z, 200)},
		{"tail of 201 runes", x(" ", 400) + x(z, 201), x(z, 112) + " … …" + x(z, 200)},
		// The tail is sanitised like the head: no escape sequence, bidi
		// override or other control reaches a terminal or the model.
		{"controls in the tail", x("h", 600) + "\x1b]0;owned\x07\u202eevil\x1b[2J",
			x("h", 200) + "… … …" + x("h", 182) + " ]0;owned evil [2J"},
	}
	for _, tc := range tests {
		if got := drained(t, tc.stderr).StderrTail(); got != tc.want {
			t.Errorf("%s: StderrTail() =\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

// TestLocalRunnerGrace: an unset (or negative) Grace is the documented 3 s
// between SIGTERM and SIGKILL (docs/SUBAGENTS.md); one given is kept.
func TestLocalRunnerGrace(t *testing.T) {
	for _, tc := range []struct{ set, want time.Duration }{
		{0, 3 * time.Second}, {-time.Second, 3 * time.Second}, {time.Nanosecond, time.Nanosecond}, {time.Minute, time.Minute},
	} {
		if got := (&LocalRunner{Grace: tc.set}).grace(); got != tc.want {
			t.Errorf("Grace %v: grace() = %v, want %v", tc.set, got, tc.want)
		}
	}
}
