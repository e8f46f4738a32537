package runview

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
)

const hostile = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\u202eX"

// wantVisible is hostile as untrusted.Terminal writes it.
const wantVisible = `\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u202eX`

func assertNoControls(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\x07\u202e\r") {
		t.Errorf("%s writes raw controls: %q", what, out)
	}
}

// Tool names come from the model; retry errors carry LLM error bodies.
func TestProgressSanitisesUntrusted(t *testing.T) {
	for _, tty := range []bool{false, true} {
		v, buf := testView(tty, true, false, 400)
		v.Update(loop.Progress{Kind: loop.ProgressToolStart, Iteration: 1, Tool: "fs__" + hostile})
		v.Update(loop.Progress{Kind: loop.ProgressToolDone, Iteration: 1, Tool: "fs__" + hostile, Failed: true})
		v.Retry(1, time.Second, errors.New("http 500: "+hostile+"\nsecond line"))
		v.Stop()
		out := strings.ReplaceAll(buf.String(), "\r\x1b[K", "") // the view's own status-line control
		assertNoControls(t, "progress", out)
		if !strings.Contains(out, "✗ fs__"+wantVisible+" failed") || !strings.Contains(out, "http 500: "+wantVisible+" second line; retrying") {
			t.Errorf("tty=%v: progress lacks the escaped text: %q", tty, out)
		}
		if tty && !strings.Contains(out, "running fs__"+wantVisible) {
			t.Errorf("status line lacks the escaped running tool: %q", out)
		}
	}
}

// The answer is byte-exact into a pipe or file, escaped on a terminal.
func TestWriteAnswer(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var buf bytes.Buffer
		WriteAnswer(&iostreams.IOStreams{Out: &buf, StdoutTTY: tty}, "answer "+hostile+"\nline 2")
		want := "answer " + hostile + "\nline 2\n"
		if tty {
			want = "answer " + wantVisible + "\nline 2\n"
		}
		if buf.String() != want {
			t.Errorf("tty=%v: got %q, want %q", tty, buf.String(), want)
		}
	}
}

// The --output json report on a terminal keeps valid JSON with the same
// strings, its controls escaped.
func TestWriteJSONOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	WriteJSON(&iostreams.IOStreams{Out: &buf, StdoutTTY: true}, map[string]string{"answer": "a\u009b31m\u202eb\x7f"})
	var got map[string]string
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || got["answer"] != "a\u009b31m\u202eb\x7f" {
		t.Fatalf("report %q: %v", buf.String(), err)
	}
	if strings.ContainsAny(buf.String(), "\u009b\u202e\x7f") {
		t.Fatalf("raw controls on the terminal: %q", buf.String())
	}
}
