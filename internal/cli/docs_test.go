package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/iostreams"
)

var (
	fenceRe = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	spanRe  = regexp.MustCompile("`[^`]+`")
	// A command line: at a line's start (after "$ "), or after a pipe, &&, ; or $(.
	commandRe = regexp.MustCompile(`(?m)(?:^\s*(?:\$ )?|\| |&& |; |\$\()odek ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?`)
)

// notCommands are words after "odek" in docs that are meant as no command.
var notCommands = map[string]bool{
	"runn":  true, // README: the mistake "odek runn" and its answer
	"reads": true, // CONFIG.md: the hint text `odek reads "mcp_servers"`
}

// Docs never mention a command that does not exist: every command line
// "odek <command>" in README.md and docs/*.md (in code blocks, and `spans`
// that start with odek) names a real command, and "odek <group> <sub>" a
// real subcommand.
func TestDocsNameRealCommands(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	ios, _, _, _ := iostreams.Test()
	root := newCmdRoot(ios)
	root.InitDefaultHelpCmd()
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code := fenceRe.FindAllString(string(b), -1)
		for _, m := range spanRe.FindAllString(fenceRe.ReplaceAllString(string(b), ""), -1) {
			if strings.HasPrefix(m, "`odek ") {
				code = append(code, strings.Trim(m, "`"))
			}
		}
		for _, c := range code {
			for _, m := range commandRe.FindAllStringSubmatch(c, -1) {
				if notCommands[m[1]] {
					continue
				}
				cmd, rest, err := root.Find([]string{m[1]})
				if err != nil || cmd == root || len(rest) > 0 {
					t.Errorf("%s: %q names no odek command", filepath.Base(f), strings.TrimSpace(m[0]))
					continue
				}
				checked++
				if m[2] != "" && cmd.HasSubCommands() {
					if sub, rest, err := root.Find([]string{m[1], m[2]}); err != nil || sub == cmd || len(rest) > 0 {
						t.Errorf("%s: %q names no odek %s subcommand", filepath.Base(f), strings.TrimSpace(m[0]), m[1])
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d command mentions found: the scan is broken", checked)
	}
}
