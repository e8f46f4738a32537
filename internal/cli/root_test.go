package cli

import (
	"slices"
	"testing"

	"github.com/odek-run/odek/internal/iostreams"
)

// TestCommandsFor: a command line that names a command first builds that
// one alone; any other line builds every command, in subcommands' order
// (help lists them, and a typo is matched against all of them).
func TestCommandsFor(t *testing.T) {
	var all []string
	for _, c := range subcommands {
		all = append(all, c.name)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "task"}, []string{"run"}},
		{[]string{"session", "list"}, []string{"session"}},
		{[]string{"subagent", "--goal", "g"}, []string{"subagent"}},
		{[]string{"-C", "dir", "run", "task"}, all},
		{[]string{"help", "run"}, all},
		{[]string{"runn"}, all},
		{[]string{"__complete", "run", ""}, all},
		{[]string{}, all},
	} {
		var got []string
		for _, c := range commandsFor(&iostreams.IOStreams{Args: tc.args}) {
			got = append(got, c.Name())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("commandsFor(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
