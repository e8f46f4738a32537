package subagent

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/untrusted"
)

// Render limits of the results block (a file name and a denial reason are
// shown at most as long as wire lets a result carry them).
const (
	maxGoalRunes    = 60
	maxErrorRunes   = 500
	maxFilesShown   = 20
	maxFileRunes    = 256
	maxDenialsShown = 3
	maxDenialRunes  = 200
)

// report is one task's section of the results block.
type report struct {
	Index     int // 1-based
	Goal      string
	Result    *wire.Result
	Artifacts []string // rendered artifact lines (already indented)
	// Tainted: the task asked for trusted and ran untrusted because this
	// run had already ingested untrusted content.
	Tainted bool
}

// taintedNote follows the status line of a task that asked for trusted and
// ran untrusted because of the taint.
const taintedNote = "trust: untrusted (trusted was asked for, but this conversation already holds untrusted content)"

// resultsHeader opens the block the model sees.
const resultsHeader = "📋 Sub-agent results:"

// renderResults renders the delegate_tasks result text, wrapped as
// untrusted content (source delegate_tasks): everything in it came from
// children. Every field is bounded; multi-line text is indented after its
// first line, so no child text can start a line that looks like a task
// header or a status line.
func renderResults(reports []report) string {
	var b strings.Builder
	b.WriteString(resultsHeader)
	for _, r := range reports {
		b.WriteString("\n")
		renderTask(&b, r)
	}
	return untrusted.Wrap("delegate_tasks", b.String())
}

func renderTask(b *strings.Builder, r report) {
	res := r.Result
	if res == nil {
		res = &wire.Result{Status: wire.StatusNoResult}
	}
	fmt.Fprintf(b, "─── Task %d: %s ───\n", r.Index, untrusted.OneLine(r.Goal, maxGoalRunes))
	b.WriteString(statusLine(res) + "\n")
	if r.Tainted {
		b.WriteString(taintedNote + "\n")
	}
	if res.Error != "" {
		b.WriteString("error: " + untrusted.OneLine(res.Error, maxErrorRunes) + "\n")
	}
	if res.Summary != "" {
		renderSummary(b, res)
	}
	if line := filesLine(res.FilesChanged); line != "" {
		b.WriteString(line + "\n")
	}
	if line := denialsLine(res); line != "" {
		b.WriteString(line + "\n")
	}
	if res.Raw != "" {
		b.WriteString("output:\n  " + indentBlock(res.Raw, "  ") + "\n")
	}
	if len(r.Artifacts) > 0 {
		b.WriteString("artifacts:\n")
		for _, l := range r.Artifacts {
			b.WriteString(l + "\n")
		}
	}
}

// renderSummary writes the summary, cut at MaxSummaryRunes, and says so
// when it (or the child) cut it.
func renderSummary(b *strings.Builder, res *wire.Result) {
	summary, cut := wire.CutSummary(res.Summary)
	b.WriteString("summary: " + indentBlock(summary, "  ") + "\n")
	if !cut && !res.SummaryTruncated {
		return
	}
	shown := min(utf8.RuneCountInString(res.Summary), wire.MaxSummaryRunes)
	total := max(res.SummaryRunes, utf8.RuneCountInString(res.Summary))
	fmt.Fprintf(b, "headline truncated (%d of %d runes shown) — the rest was not kept; ask for long output as an artifact\n", shown, total)
}

// statusLine is `status: <s>[ (<reason>)][ · N iterations][ · X.Xs][ · ~N tokens]`.
func statusLine(r *wire.Result) string {
	s := "status: " + untrusted.OneLine(r.Status, 32)
	if r.PartialReason != "" {
		s += " (" + untrusted.OneLine(r.PartialReason, 32) + ")"
	}
	if r.Iterations > 0 {
		s += fmt.Sprintf(" · %d iterations", r.Iterations)
	}
	if r.DurationSeconds > 0 {
		s += fmt.Sprintf(" · %.1fs", r.DurationSeconds)
	}
	if r.TokensUsed > 0 {
		s += fmt.Sprintf(" · ~%d tokens", r.TokensUsed)
	}
	return s
}

func filesLine(files []string) string {
	if len(files) == 0 {
		return ""
	}
	shown := files[:min(len(files), maxFilesShown)]
	parts := make([]string, len(shown))
	for i, f := range shown {
		parts[i] = untrusted.OneLine(f, maxFileRunes)
	}
	line := "files changed: " + strings.Join(parts, ", ")
	if more := len(files) - len(shown); more > 0 {
		line += fmt.Sprintf(" (+%d more)", more)
	}
	return line
}

// denialsLine is `denials (k of N): tool/class — reason; …`.
func denialsLine(r *wire.Result) string {
	if len(r.Denials) == 0 {
		return ""
	}
	total := max(r.DenialsTotal, len(r.Denials))
	shown := r.Denials[:min(len(r.Denials), maxDenialsShown)]
	parts := make([]string, len(shown))
	for i, d := range shown {
		who := untrusted.OneLine(d.Tool, 64)
		if d.Class != "" {
			who += "/" + untrusted.OneLine(d.Class, 32)
		}
		parts[i] = who + " — " + untrusted.OneLine(d.Reason, maxDenialRunes)
	}
	return fmt.Sprintf("denials (%d of %d): %s", len(shown), total, strings.Join(parts, "; "))
}

// indentBlock cleans multi-line text (hidden and control runes become
// spaces, CR LF and CR become LF, invalid UTF-8 becomes U+FFFD) and puts
// indent before every line after the first.
func indentBlock(s, indent string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r':
			b.WriteString("\n" + indent)
		case r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			b.WriteRune(' ')
		default:
			b.WriteRune(r) // ranging turns invalid UTF-8 into U+FFFD
		}
	}
	return b.String()
}
