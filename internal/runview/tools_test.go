package runview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/iostreams"
)

// odek tools on a terminal: one line per tool, cut to the width; into a
// pipe the first lines whole; --long every line of every description.
func TestToolsText(t *testing.T) {
	listing := []ListedTool{
		{Name: "read_file", Description: "Read a file of the workspace, with line numbers, a window at a time.\nSecond line."},
		{Name: "fs__x", Description: "Short.\x1b[2J"},
	}
	run := func(tty, long bool) string {
		var out bytes.Buffer
		ios := &iostreams.IOStreams{Out: &out, StdoutTTY: tty, OutWidth: func() int { return 40 }}
		if err := WriteToolsText(ios, listing, long); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	term := run(true, false)
	lines := strings.Split(strings.TrimSuffix(term, "\n"), "\n")
	if len(lines) != 2 || lines[0] != "read_file  Read a file of the workspac…" || !strings.HasPrefix(lines[1], "fs__x      Short.") {
		t.Errorf("terminal listing:\n%s", term)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 39 {
			t.Errorf("line of %d columns on a 40-column terminal: %q", n, l)
		}
	}
	if strings.Contains(term, "\x1b") {
		t.Errorf("raw escape on the terminal: %q", term)
	}
	if pipe := run(false, false); !strings.Contains(pipe, "a window at a time.\n") || strings.Contains(pipe, "Second line") {
		t.Errorf("piped listing:\n%s", pipe)
	}
	if long := run(true, true); !strings.Contains(long, "a window at a time.\n           Second line.\n") {
		t.Errorf("--long listing:\n%s", long)
	}
}
