package runview

import (
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/untrusted"
)

// The interaction modes (interaction_mode, --interaction-mode): how much a
// run tells on stderr, from nothing to everything. off is --quiet: errors,
// warnings and what odek waits for only. engaging (the default) shows
// each step: the model thinking, each tool call and how it ended. enhance
// adds the model's own words between its tool calls, which say what it is
// about to do and why. verbose adds the start of each tool result, as the
// model saw it. The final answer is on stdout in every mode.
const (
	ModeOff      = "off"
	ModeEngaging = "engaging"
	ModeEnhance  = "enhance"
	ModeVerbose  = "verbose"
)

// The caps of what enhance and verbose show: one reply's text on one line,
// the first lines of a result, each cut.
const (
	narrationChars  = 400
	resultLines     = 5
	resultLineChars = 200
)

// SetMode sets how much the view tells (one of the Mode values; "" is
// engaging). A nil view (--quiet, off) stays silent.
func (v *Progress) SetMode(mode string) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.mode = mode
}

// narrates reports whether the mode shows the model's words (enhance and
// verbose), and results whether it shows tool results (verbose).
func (v *Progress) narrates() bool { return v.mode == ModeEnhance || v.mode == ModeVerbose }
func (v *Progress) results() bool  { return v.mode == ModeVerbose }

// Reply shows the words of a reply that calls tools (loop.Options.OnReply),
// in enhance and verbose: the final answer is stdout's.
func (v *Progress) Reply(i int, m llm.Message) {
	if v == nil || len(m.ToolCalls) == 0 || strings.TrimSpace(m.Content) == "" {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.narrates() {
		return
	}
	v.line(fmt.Sprintf("[%d] %s %s", i, v.paint("36", "»"), untrusted.OneLine(untrusted.Terminal(strings.TrimSpace(m.Content)), narrationChars)))
	v.drawStatus()
}

// Results shows, in verbose, the start of each result of the batch the
// last reply asked for (loop.Options.AfterBatch): the history's tool
// messages after its last assistant message, in order, under the
// iteration Update last showed.
func (v *Progress) Results(h []llm.Message) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.results() {
		return
	}
	start := len(h)
	for start > 0 && h[start-1].Role != llm.RoleAssistant {
		start--
	}
	if start == 0 || len(h[start-1].ToolCalls) == 0 {
		return // the final answer: no batch
	}
	names := map[string]string{}
	for _, c := range h[start-1].ToolCalls {
		names[c.ID] = c.Function.Name
	}
	for _, m := range h[start:] {
		if m.Role != llm.RoleTool {
			continue
		}
		v.line(fmt.Sprintf("[%d]   %s result:", v.iter, untrusted.TerminalLine(names[m.ToolCallID])))
		for _, l := range resultHead(unframe(m.Content)) {
			v.emit("         " + v.paint("2", "│ "+l) + "\n")
		}
	}
	v.drawStatus()
}

// resultHead is the first resultLines lines of a result, each on one line
// and cut, with a last line saying how many more there were.
func resultHead(body string) []string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	n := min(len(lines), resultLines)
	out := make([]string, 0, n+1)
	for _, l := range lines[:n] {
		out = append(out, untrusted.OneLine(untrusted.Terminal(l), resultLineChars))
	}
	if more := len(lines) - n; more > 0 {
		out = append(out, fmt.Sprintf("… %d more line(s)", more))
	}
	return out
}
