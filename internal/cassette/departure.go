package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DepartureError is the first place a replayed run departs from its
// cassette: which stream, which request, which field, and how the two
// values differ. A departure is printed into logs a CI job may publish, and
// its live side may be anything the run read (a workspace file holding a
// credential), so it never carries a value raw: a string shows its length,
// a hash and a short excerpt around the first difference, redacted, with
// every secret-shaped run hidden (see excerpt).
type DepartureError struct {
	Stream string // "llm", "mcp-files", "tool-shell"
	What   string // "request 3", "message 5 (tools/call)"
	Path   string // the first differing field, "" when Reason says why
	At     string // where in a string field: "byte 812 (line 14)"
	Want   string // the cassette's value, as excerpt shows it
	Got    string // this run's value, as excerpt shows it
	Reason string // a departure that is not a field difference
	Hint   string // what usually causes a departure there, if known
}

func (d *DepartureError) Error() string {
	var b strings.Builder
	if d.Reason != "" {
		fmt.Fprintf(&b, "replay: %s %s departs from the cassette: %s", d.Stream, d.What, d.Reason)
	} else {
		where := d.Path
		if where == "" {
			where = "(the whole value)"
		}
		if d.At != "" {
			where += ", " + d.At
		}
		fmt.Fprintf(&b, "replay: %s %s departs from the cassette at %s:\n  cassette: %s\n  this run: %s", d.Stream, d.What, where, d.Want, d.Got)
	}
	if d.Hint != "" {
		b.WriteString("\n  hint: " + d.Hint)
	}
	return b.String()
}

// diff is where two normalised values first differ: the field path
// ("messages[2].content", "" for the whole value), where in a string, and
// each side as a departure shows it.
type diff struct{ path, at, want, got string }

func leafDiff(path string, want, got any) diff {
	return diff{path: path, want: show(want), got: show(got)}
}

// Excerpt sizes: the bytes shown before and after the first difference,
// and the most of a non-string value shown.
const (
	excerptBefore = 40
	excerptAfter  = 40
	showMax       = 160
)

// stringDiff shows both strings around the first byte where they differ,
// each with its length and hash.
func stringDiff(path, w, g string) diff {
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	from := runeStart(w, max(0, i-excerptBefore))
	side := func(s string) string {
		to := runeStart(s, min(len(s), i+excerptAfter))
		return fmt.Sprintf("%s (%d bytes, sha256 %s)", strconv.Quote(excerpt(s, from, to)), len(s), fingerprint(s))
	}
	line := 1 + strings.Count(w[:i], "\n")
	return diff{path: path, at: fmt.Sprintf("byte %d (line %d)", i, line), want: side(w), got: side(g)}
}

// fingerprint is the first 12 hex digits of s's SHA-256: enough to tell
// two values apart, or to check one against a file (sha256sum).
func fingerprint(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// show is a non-string value's JSON, at most showMax bytes of it, with
// secret-shaped runs hidden as in excerpt.
func show(v any) string {
	text := fmt.Sprint(v)
	if b, err := json.Marshal(v); err == nil {
		text = string(b)
	}
	return excerpt(text, 0, runeStart(text, min(len(text), showMax)))
}

// excerpt is s[from:to] ("…" where it was cut), with every secret-shaped
// run of s that reaches into it replaced by "[N bytes hidden]". A run is
// judged whole, also where the cut falls inside it, so a credential is
// never shown in part.
func excerpt(s string, from, to int) string {
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	i := from
	for i < to {
		if !runByte(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j, k := i, i
		for j > 0 && runByte(s[j-1]) {
			j--
		}
		for k < len(s) && runByte(s[k]) {
			k++
		}
		if secretShaped(s[j:k]) {
			fmt.Fprintf(&b, "[%d bytes hidden]", k-j)
		} else {
			b.WriteString(s[i:min(k, to)])
		}
		i = k
	}
	if i < len(s) {
		b.WriteString("…")
	}
	return b.String()
}

// runByte is a byte of the runs excerpt judges: letters, digits and the
// other bytes of tokens and base64 ('_', '-', '+', '=').
func runByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '+' || c == '=' }

// secretShaped reports whether a run could be a credential: 8 bytes or
// more mixing letters and digits (a password, a key, a token), or 24 or
// more of anything. Words, numbers and paths' parts are shown.
func secretShaped(run string) bool {
	if len(run) >= 24 {
		return true
	}
	if len(run) < 8 {
		return false
	}
	letter, digit := false, false
	for i := 0; i < len(run); i++ {
		c := run[i]
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit = digit || isDigit(c)
	}
	return letter && digit
}

// pinHint is what to do when a replay departs because its config differs.
const pinHint = `pin the config for the recording and every replay alike (docs/TESTING.md, "Pinning the config")`

// configHint names the usual cause of an LLM request that departs at path
// (want is the recorded request): the system prompt states the run's
// limits, tools and settings, and the request's other fields (model,
// tools, stream, reasoning) come from the config, so a replay under
// another config (a CI runner's, not the laptop's that recorded) departs
// there first. A departure in the conversation itself gets no hint.
func configHint(path string, want any) string {
	switch {
	case strings.HasPrefix(path, "messages[0]") && firstRole(want) == "system":
		return "the system prompt states the run's limits, tools and settings, and this run's differs from the recording's: " + pinHint
	case path != "" && !strings.HasPrefix(path, "messages"):
		return "a request setting (model, tools, stream, reasoning) differs from the recording's: " + pinHint
	}
	return ""
}

// firstRole is the role of a request's first message.
func firstRole(req any) string {
	obj, _ := req.(map[string]any)
	msgs, _ := obj["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	m, _ := msgs[0].(map[string]any)
	role, _ := m["role"].(string)
	return role
}
