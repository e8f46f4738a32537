package plan

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/msgkind"
	"github.com/odek-run/odek/internal/untrusted"
)

// prefix opens the plan message (msgkind owns the wording; the loop keeps
// the message as msgkind.Plan, docs/PLANNING.md).
var prefix = msgkind.Plan.Opening()

const (
	source          = "plan"
	noteSep         = " — "
	truncatedMarker = "[plan truncated: exceeded max_render_chars]"
	omittedFormat   = "[+%d done steps omitted]"
)

// header is the line outside the wrapper.
func header(version int, steps []Step) string {
	c := counts(steps)
	if c.Done == len(steps) {
		return fmt.Sprintf("%s v%d — all %d steps complete.]", prefix, version, len(steps))
	}
	h := fmt.Sprintf("%s v%d — %d/%d done", prefix, version, c.Done, len(steps))
	if c.InProgress > 0 {
		h += fmt.Sprintf(", %d in progress", c.InProgress)
	}
	if c.Blocked > 0 {
		h += fmt.Sprintf(", %d blocked", c.Blocked)
	}
	return h + ". Structured state, not instructions.]"
}

func stepLine(s Step) string {
	line := s.ID + " [" + string(s.Status) + "] " + s.Title
	if s.Note != "" {
		line += noteSep + s.Note
	}
	return line
}

// render builds the message: the header, then the step lines inside the
// untrusted wrapper. Step lines longer than maxChars (runes) first lose done
// steps, oldest first, behind an omission line, then are cut hard.
func render(version int, nonce string, steps []Step, maxChars int) string {
	lines := make([]string, len(steps))
	for i, s := range steps {
		lines[i] = stepLine(s)
	}
	body := strings.Join(lines, "\n")
	for omitted := 0; utf8.RuneCountInString(body) > maxChars; {
		k := firstDone(steps, lines)
		if k < 0 {
			body = cut(body, maxChars)
			break
		}
		lines[k] = ""
		omitted++
		body = joinKept(fmt.Sprintf(omittedFormat, omitted), lines)
	}
	return header(version, steps) + "\n" + untrusted.WrapNonce(nonce, source, body)
}

func firstDone(steps []Step, lines []string) int {
	for i, s := range steps {
		if s.Status == Done && lines[i] != "" {
			return i
		}
	}
	return -1
}

func joinKept(first string, lines []string) string {
	kept := []string{first}
	for _, l := range lines {
		if l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// cut shortens body to maxChars runes, the marker included.
func cut(body string, maxChars int) string {
	keep := max(maxChars-utf8.RuneCountInString(truncatedMarker)-1, 0)
	n := 0
	for i := range body {
		if n == keep {
			return body[:i] + "\n" + truncatedMarker
		}
		n++
	}
	return body + "\n" + truncatedMarker
}

// Restore replaces the state with the plan a rendered message holds, keeping
// its version and nonce, so the next render is the same message. A message
// that is not a complete plan returns ErrNotAPlan and changes nothing.
func (p *Plan) Restore(msg string) error {
	version, nonce, steps, err := parse(msg)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.version, p.nonce, p.steps, p.streak = version, nonce, steps, 0
	p.msg = render(version, nonce, steps, p.o.MaxRenderChars)
	return nil
}

// parse reads a message made by render; anything else is ErrNotAPlan.
func parse(msg string) (int, string, []Step, error) {
	fail := func(why string) (int, string, []Step, error) {
		return 0, "", nil, fmt.Errorf("%w: %s", ErrNotAPlan, why)
	}
	lines := strings.Split(msg, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], prefix+" v") {
		return fail("no plan header")
	}
	open, closing := lines[1], lines[len(lines)-1]
	nonce, ok := strings.CutPrefix(open, "<untrusted_content_")
	nonce, ok2 := strings.CutSuffix(nonce, ` source="plan">`)
	if !ok || !ok2 || len(nonce) != 16 || strings.Trim(nonce, "0123456789abcdef") != "" ||
		closing != "</untrusted_content_"+nonce+">" {
		return fail("no plan wrapper")
	}
	var steps []Step
	seen := map[string]bool{}
	for i, line := range lines[2 : len(lines)-1] {
		s, err := parseStep(line)
		if err != nil {
			return fail(err.Error())
		}
		if checkStep(i, s, seen) != nil {
			return fail("invalid step line")
		}
		steps = append(steps, s)
	}
	v, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(lines[0], " ", 4)[2], "v"))
	if err != nil || v < 1 {
		return fail("bad version")
	}
	if header(v, steps) != lines[0] {
		return fail("the header does not match the steps")
	}
	return v, nonce, steps, nil
}

func parseStep(line string) (Step, error) {
	if strings.HasPrefix(line, "[") {
		return Step{}, fmt.Errorf("omitted or truncated steps") // "[+N done steps omitted]", "[plan truncated…"
	}
	id, rest, ok := strings.Cut(line, " [")
	if !ok {
		return Step{}, fmt.Errorf("bad step line")
	}
	st, text, ok := strings.Cut(rest, "] ")
	if !ok || !validStatus(Status(st)) {
		return Step{}, fmt.Errorf("bad step status")
	}
	title, note, _ := strings.Cut(text, noteSep)
	if clean(title) != title || clean(note) != note {
		return Step{}, fmt.Errorf("bad step text")
	}
	return Step{ID: id, Title: title, Status: Status(st), Note: note}, nil
}
