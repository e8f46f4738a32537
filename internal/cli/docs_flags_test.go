package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/iostreams"
)

// CONFIG.md's layer 4 names the commands that take -c, and only those.
func TestConfigDocNamesTheCommandsWithC(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "CONFIG.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "4. The command line")
	end := strings.Index(doc[start:], "\n\n")
	if start < 0 || end < 0 {
		t.Fatal("CONFIG.md has no layer 4 paragraph")
	}
	layer := strings.Join(strings.Fields(doc[start:start+end]), " ")
	var with []string
	ios, _, _, _ := iostreams.Test()
	for _, c := range newCmdRoot(ios).Commands() {
		if c.Flags().Lookup("config") != nil {
			with = append(with, c.Name())
		}
	}
	slices.Sort(with)
	for _, name := range []string{"run", "continue", "tools", "subagent", "session", "approvals", "init", "version"} {
		named := strings.Contains(layer, "`odek "+name+"`")
		if takes := slices.Contains(with, name); named != takes {
			t.Errorf("CONFIG.md layer 4 names odek %s: %v; the command takes -c: %v (commands with -c: %v)", name, named, takes, with)
		}
	}
}
