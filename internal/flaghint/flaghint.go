// Package flaghint answers an unknown flag or command: with odek's
// spelling of what another agent runner's flag does (Claude Code's
// --output-format, Codex's exec, goose's --max-turns), or else with the
// nearest of the command's own flags. The command line calls it when the
// flag parser refuses an argument; the table is data, and TestTable keeps
// each entry honest.
package flaghint

import (
	"strings"

	"github.com/odek-run/odek/internal/suggest"
)

// Hint is one other tool's spelling and odek's.
type Hint struct {
	// Theirs is the flag (with its dashes) or command as the other tool
	// spells it.
	Theirs string
	// Tools are the tools that spell it so.
	Tools []string
	// Ours is odek's spelling, what to type instead: flags of odek run
	// (or the command), "" when odek has nothing that corresponds.
	Ours string
	// Note says how the two differ, or what to do instead; may be "".
	Note string
}

// Message is the hint as the error's last line says it, e.g.
// `--max-turns is Claude Code's and goose's spelling; odek's is --max-iter`.
func (h Hint) Message() string {
	var b strings.Builder
	b.WriteString(h.Theirs + " is " + toolList(h.Tools) + " spelling")
	switch {
	case strings.HasPrefix(h.Ours, "odek "):
		b.WriteString("; in odek: " + h.Ours)
	case h.Ours != "":
		b.WriteString("; odek's is " + h.Ours)
	}
	if h.Note != "" {
		b.WriteString(": " + h.Note)
	}
	return b.String()
}

// Flag returns the hint for a flag as typed ("--output-format",
// "--output-format=json", "-p", "-pfoo"), matched exactly, then ignoring
// case.
func Flag(arg string) (Hint, bool) {
	name := flagName(arg)
	if name == "" {
		return Hint{}, false
	}
	return find(flags, name)
}

// Command returns the hint for a command name ("exec").
func Command(name string) (Hint, bool) {
	return find(commands, name)
}

// Suggest is the text to add to an unknown flag's error: the other tool's
// hint when arg is one of theirs, else "did you mean --x?" for the nearest
// of known (the command's flags, without dashes), else "".
func Suggest(arg string, known []string) string {
	if h, ok := Flag(arg); ok {
		return h.Message()
	}
	name := strings.TrimLeft(flagName(arg), "-")
	if len(name) < 2 {
		return ""
	}
	if near := suggest.Nearest(name, known); near != "" {
		return "did you mean --" + near + "?"
	}
	return ""
}

// All returns every hint, flags then commands, for a test that checks
// each of odek's spellings exists.
func All() []Hint {
	return append(append([]Hint(nil), flags...), commands...)
}

// flagName is the flag an argument names: "--name" before any "=", or the
// first letter of a "-x…" shorthand; "" for anything else.
func flagName(arg string) string {
	switch {
	case strings.HasPrefix(arg, "--") && len(arg) > 2:
		name, _, _ := strings.Cut(arg, "=")
		return name
	case strings.HasPrefix(arg, "-") && len(arg) > 1 && arg[1] != '-':
		return arg[:2]
	}
	return ""
}

func find(table []Hint, name string) (Hint, bool) {
	for _, h := range table {
		if h.Theirs == name {
			return h, true
		}
	}
	if strings.HasPrefix(name, "--") || !strings.HasPrefix(name, "-") {
		for _, h := range table {
			if strings.EqualFold(h.Theirs, name) {
				return h, true
			}
		}
	}
	return Hint{}, false
}

// toolList is "Codex's", "Claude Code's and goose's", "A's, B's and C's".
func toolList(tools []string) string {
	p := make([]string, len(tools))
	for i, t := range tools {
		p[i] = t + "'s"
	}
	switch len(p) {
	case 0:
		return "another tool's"
	case 1:
		return p[0]
	}
	return strings.Join(p[:len(p)-1], ", ") + " and " + p[len(p)-1]
}
