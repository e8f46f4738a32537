package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/flaghint"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagHintTable keeps flaghint's table true to this command line: no
// other tool's spelling is a flag or command odek takes (it would never be
// answered, and the hint would be wrong), and every spelling a hint gives
// (a flag of odek run, a command, a setting) exists.
func TestFlagHintTable(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := iostreams.Test()
	root := newCmdRoot(ios)
	run, _, err := root.Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]bool{}
	for _, s := range config.Settings() {
		settings[s.Key] = s.Supported
	}
	for _, h := range flaghint.All() {
		if strings.HasPrefix(h.Theirs, "-") {
			if f := lookupFlag(run, h.Theirs); f {
				t.Errorf("%s is odek run's own flag, yet flaghint answers it as %s's", h.Theirs, h.Tools)
			}
		} else if c, _, err := root.Find([]string{h.Theirs}); err == nil && c != root {
			t.Errorf("%s is an odek command, yet flaghint answers it as %s's", h.Theirs, h.Tools)
		}
		checkOurs(t, root, run, settings, h)
	}
}

// checkOurs checks each spelling h.Ours names: flags, "odek <command>",
// and setting keys.
func checkOurs(t *testing.T, root, run *cobra.Command, settings map[string]bool, h flaghint.Hint) {
	t.Helper()
	words := strings.Fields(h.Ours)
	for i, w := range words {
		w = strings.Trim(w, "()")
		switch {
		case strings.HasPrefix(w, "-") && !lookupFlag(run, w):
			t.Errorf("the hint for %s names %s, which odek run does not take", h.Theirs, w)
		case w == "odek" && i+1 < len(words):
			if c, _, err := root.Find([]string{words[i+1]}); err != nil || c == root {
				t.Errorf("the hint for %s names odek %s, which does not exist", h.Theirs, words[i+1])
			}
		case strings.Contains(w, ".") && !strings.ContainsAny(w, `"'<`) && !settings[w]:
			t.Errorf("the hint for %s names the setting %s, which is not supported", h.Theirs, w)
		}
	}
}

// lookupFlag reports whether cmd takes the flag spelled arg ("--x", "-x").
func lookupFlag(cmd *cobra.Command, arg string) bool {
	if name, ok := strings.CutPrefix(arg, "--"); ok {
		return cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil
	}
	short := strings.TrimPrefix(arg, "-")
	return cmd.Flags().ShorthandLookup(short) != nil || cmd.InheritedFlags().ShorthandLookup(short) != nil
}

// TestFlagHintMessages: an unknown flag's error gets the other tool's
// spelling or the nearest own flag; other flag errors get nothing.
func TestFlagHintMessages(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := iostreams.Test()
	run, _, err := newCmdRoot(ios).Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ err, want string }{
		{"unknown flag: --max-turns", "odek's is --max-iter"},
		{"unknown flag: --output-format=json", "odek's is --output"},
		{"unknown shorthand flag: 'p' in -p", `odek run "<task>"`},
		{"unknown flag: --max-iterr", "did you mean --max-iter?"},
		{"unknown flag: --zzzzzzzzzz", ""},
		{`invalid argument "x" for "--max-iter" flag`, ""},
	} {
		got := flagHint(run, errors.New(tc.err))
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("flagHint(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestHelpCitesNoDecision: help texts speak to users, who have no
// docs/DECISIONS.md numbers to look up; no command's description, example
// or flag help cites one.
func TestHelpCitesNoDecision(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := iostreams.Test()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		texts := []string{c.Short, c.Long, c.Example}
		c.Flags().VisitAll(func(f *pflag.Flag) { texts = append(texts, f.Usage) })
		for _, s := range texts {
			if m := citeRe.FindString(s); m != "" {
				t.Errorf("odek %s's help cites %s", c.CommandPath(), m)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newCmdRoot(ios))
}
