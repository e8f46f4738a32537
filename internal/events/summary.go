package events

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxSummaryString caps every string in an args_summary, in bytes.
const MaxSummaryString = 512

// maxKeys caps the key list of a keys summary, keeping it small.
const maxKeys = 64

// ArgsSHA256 is the hex SHA-256 of the raw argument bytes (args_sha256).
func ArgsSHA256(args []byte) string {
	sum := sha256.Sum256(args)
	return hex.EncodeToString(sum[:])
}

// KeysSummary is the args_summary of a tool that describes none of its own
// (MCP tools above all): {"keys": sorted top-level argument names}, never a
// value, since arguments are arbitrary and may hold secrets. It is nil when
// args is not a JSON object.
//
// Tools that know their arguments describe their own summary (the agent
// loop's ArgsSummarizer), built from the helpers below: shell {argv0, class},
// path tools {path, class}, URL tools {host}.
func KeysSummary(args []byte) map[string]any {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, Clip(k))
	}
	slices.Sort(keys)
	return map[string]any{"keys": keys[:min(len(keys), maxKeys)]}
}

// Argv0 is the program a shell command runs, as args_summary names it: the
// basename of the first word that is not a NAME=value assignment.
func Argv0(cmd string) string {
	for _, w := range strings.Fields(cmd) {
		if isAssignment(w) {
			continue
		}
		return Clip(path.Base(strings.Trim(w, `"'`)))
	}
	return ""
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// Clip cuts s to MaxSummaryString bytes on a rune boundary.
func Clip(s string) string {
	if len(s) <= MaxSummaryString {
		return s
	}
	s = s[:MaxSummaryString]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
