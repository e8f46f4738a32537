package loop

import (
	"errors"
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/msgkind"
)

const (
	trimFactor       = 0.75 // of the context window, before the provider corrected the estimate
	trimFactorStrict = 0.65 // after the provider counted >15% more than estimated, or rejected a request
	truncateOver     = 2000 // bytes: tool results longer than this may be truncated
	keepNewestTools  = 4    // tool results never truncated
	keepNewestGroups = 2    // groups proactive trimming never drops
	markerReserve    = 120  // tokens kept free for the trim markers
)

// trimmer decides what of the history a request shows. The history itself
// stays whole (it is what sessions save); the request gets a view of it
// without the dropped groups, with truncated tool results and the markers.
// Its decisions only grow, so the view is stable from one call to the next.
type trimmer struct {
	window     int     // context size in tokens; 0 = unknown: no proactive trimming
	factor     float64 // share of the window a request may fill
	toolTokens int     // estimate of the tool definitions
	reserve    int     // tokens kept free besides the markers (the digest)

	dropped     []bool         // by group of the history
	cut         map[int]string // message index → the notice that replaced its content
	nTrunc      int            // tool results truncated, cumulative
	nDrop       int            // groups dropped by proactive trimming, cumulative
	survived    int            // messages removed by survival mode, cumulative
	survivalEnd int            // groups the history had at the last survival; 0 = none
	digest      string         // the compaction digest message, "" = none
}

func newTrimmer(window, toolTokens int) *trimmer {
	return &trimmer{window: window, factor: trimFactor, toolTokens: toolTokens, cut: map[int]string{}}
}

// active reports whether the view differs from the history.
func (t *trimmer) active() bool {
	return t.nTrunc+t.nDrop+t.survived > 0 || t.digest != ""
}

// grow extends the per-group state to a history that gained groups.
func (t *trimmer) grow(h *History) {
	for len(t.dropped) < h.Groups() {
		t.dropped = append(t.dropped, false)
	}
}

// inserted shifts the state after a group was inserted at group g, message m.
func (t *trimmer) inserted(g, m int) {
	if g <= len(t.dropped) {
		t.dropped = append(t.dropped[:g], append([]bool{false}, t.dropped[g:]...)...)
	}
	if len(t.cut) > 0 {
		shifted := make(map[int]string, len(t.cut))
		for i, n := range t.cut {
			if i >= m {
				i++
			}
			shifted[i] = n
		}
		t.cut = shifted
	}
	if t.survivalEnd > g {
		t.survivalEnd++
	}
}

// layout are the group indices the view is built around.
type layout struct {
	lead      int // leading system groups
	firstUser int // -1 when none
	lastUser  int // -1 when none
}

func layoutOf(h *History) layout {
	l := layout{firstUser: -1, lastUser: -1}
	for l.lead < h.Groups() && h.msgs[h.starts[l.lead]].Role == llm.RoleSystem {
		l.lead++
	}
	for k := 0; k < h.Groups(); k++ {
		if h.msgs[h.starts[k]].Role == llm.RoleUser {
			if l.firstUser < 0 {
				l.firstUser = k
			}
			l.lastUser = k
		}
	}
	return l
}

// pinned reports a group that is one plan or digest message.
func pinned(g []llm.Message) bool {
	return len(g) == 1 && g[0].Kind.Pinned()
}

// view is what the next request sends.
func (t *trimmer) view(h *History) []llm.Message {
	if !t.active() {
		return h.Messages()
	}
	t.grow(h)
	n := 4 // room for the markers
	for k := range h.Groups() {
		if !t.dropped[k] {
			n += len(h.Group(k))
		}
	}
	out := make([]llm.Message, 0, n)
	t.walk(h, func(m llm.Message) { out = append(out, m) })
	return out
}

// estimate is EstimateMessages(t.view(h)) without building the view: the
// proactive pass before every call needs the number only.
func (t *trimmer) estimate(h *History) int {
	if !t.active() {
		return EstimateMessages(h.Messages())
	}
	t.grow(h)
	n := 0
	t.walk(h, func(m llm.Message) { n += messageTokens(&m) })
	return n
}

// walk passes each message of the view to fn in order: the groups not
// dropped, with their truncations applied, and the markers.
func (t *trimmer) walk(h *History, fn func(llm.Message)) {
	l := layoutOf(h)
	emit := func(k msgkind.Kind, s string) { fn(marker(k, s)) }
	for k := 0; k < h.Groups(); k++ {
		if k == l.lead && t.survived > 0 {
			emit(msgkind.ContextSurvive, fmt.Sprintf(msgkind.ContextSurvive.Opening()+" %d earlier message(s) were removed after the provider rejected the request as too long for the model's context window.]", t.survived))
		}
		if k == l.lastUser && t.nTrunc+t.nDrop > 0 {
			emit(msgkind.ContextTrimmed, fmt.Sprintf(msgkind.ContextTrimmed.Opening()+" %d tool output(s) truncated, %d prior message group(s) dropped to fit the model's context window.]", t.nTrunc, t.nDrop))
		}
		if !t.dropped[k] {
			start := h.starts[k]
			for i, m := range h.Group(k) {
				if notice, ok := t.cut[start+i]; ok {
					m.Content = notice
				}
				fn(m)
			}
		}
		if k == l.firstUser && t.digest != "" {
			emit(msgkind.Digest, t.digest)
		}
		if t.survivalEnd > 0 && k == t.survivalEnd-1 {
			emit(msgkind.SurvivalMode, msgkind.SurvivalMode.Opening()+" the conversation was cut to its most recent steps to fit the model's context window. Carry on with the task from here; look up again anything you need from before.]")
		}
	}
}

// marker is a system message of kind k.
func marker(k msgkind.Kind, s string) llm.Message {
	return llm.Message{Role: llm.RoleSystem, Content: s, Kind: k}
}

func truncatedNotice(n int) string {
	return fmt.Sprintf("[tool output trimmed: %d bytes dropped to fit context budget]", n)
}

// budget is how many tokens of messages a request may carry.
func (t *trimmer) budget() int {
	return int(t.factor*float64(t.window)) - t.toolTokens
}

// proactive trims before a call when the estimate passes the budget: first
// old tool results are truncated, then the oldest groups dropped, each only
// as far as needed. It returns the groups it dropped and the results it
// truncated in this pass.
func (t *trimmer) proactive(h *History) (dropped []int, truncated int) {
	if t.window <= 0 {
		return nil, 0
	}
	t.grow(h)
	est := t.estimate(h)
	budget := t.budget()
	if est <= budget {
		return nil, 0
	}
	target := budget - t.reserve
	if !t.active() {
		target -= markerReserve
	}
	est, truncated = t.truncate(h, est, target)
	l := layoutOf(h)
	for k := 0; k < h.Groups() && est > target; k++ {
		if t.dropped[k] || t.protected(h, l, k) {
			continue
		}
		est -= t.groupTokens(h, k)
		t.dropped[k] = true
		dropped = append(dropped, k)
	}
	t.nTrunc += truncated
	t.nDrop += len(dropped)
	return dropped, truncated
}

// truncate replaces old tool results over truncateOver bytes, oldest first,
// until est reaches target; the newest keepNewestTools results stay whole.
func (t *trimmer) truncate(h *History, est, target int) (int, int) {
	var tools []int
	for i, m := range h.msgs {
		if m.Role == llm.RoleTool {
			tools = append(tools, i)
		}
	}
	n := 0
	for _, i := range tools[:max(len(tools)-keepNewestTools, 0)] {
		if est <= target {
			break
		}
		content := h.msgs[i].Content
		if _, done := t.cut[i]; done || len(content) <= truncateOver || t.dropped[t.groupOf(h, i)] {
			continue
		}
		notice := truncatedNotice(len(content))
		est -= tokens(content) - tokens(notice)
		t.cut[i] = notice
		n++
	}
	return est, n
}

// protected groups are never dropped by proactive trimming: the leading
// system messages, the first and the latest user message, the plan and the
// digest, and the newest groups.
func (t *trimmer) protected(h *History, l layout, k int) bool {
	return k < l.lead || k == l.firstUser || k == l.lastUser || k >= h.Groups()-keepNewestGroups || pinned(h.Group(k))
}

func (t *trimmer) groupTokens(h *History, k int) int {
	n := 0
	start := h.starts[k]
	for i, m := range h.Group(k) {
		if notice, ok := t.cut[start+i]; ok {
			m.Content = notice
		}
		n += messageTokens(&m)
	}
	return n
}

// groupOf is the group of message i.
func (t *trimmer) groupOf(h *History, i int) int {
	lo, hi := 0, len(h.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if h.starts[mid] <= i {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// survive is survival mode, after the provider rejected a request for its
// length: only the leading system messages, the plan and the digest, the
// original task, the latest user message and the last two tool-call groups
// stay. It returns the messages it removed; 0 means nothing was left to
// remove.
func (t *trimmer) survive(h *History) int {
	t.grow(h)
	l := layoutOf(h)
	keep := make([]bool, h.Groups())
	for k := 0; k < h.Groups(); k++ {
		keep[k] = k < l.lead || k == l.firstUser || k == l.lastUser || pinned(h.Group(k))
	}
	for k, found := h.Groups()-1, 0; k >= 0 && found < 2; k-- {
		if g := h.Group(k); g[0].Role == llm.RoleAssistant && len(g[0].ToolCalls) > 0 {
			keep[k] = true
			found++
		}
	}
	removed := 0
	for k := range keep {
		if !keep[k] && !t.dropped[k] {
			t.dropped[k] = true
			removed += len(h.Group(k))
		}
	}
	if removed == 0 {
		return 0
	}
	t.survived += removed
	t.survivalEnd = h.Groups()
	t.factor = trimFactorStrict
	return removed
}

// contextLengthPhrases are provider error texts that mean "too long"
// (docs/SESSIONS.md), for errors the client did not type as such.
var contextLengthPhrases = []string{
	"context_length_exceeded", "maximum context length", "context length", "token limit",
	"context window", "max_input_tokens", "input length", "too many tokens",
	"input is too long", "reduce the length",
}

// isContextLength reports a provider rejection of the request's length.
func isContextLength(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, llm.ErrContextLength) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, p := range contextLengthPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
