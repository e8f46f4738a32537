package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	// citeRe finds "DECISION 5", "DECISIONS 16 and 17", "DECISION 1–15".
	citeRe = regexp.MustCompile(`DECISIONS? (\d+)(?:\s*(?:–|-|and)\s*(\d+))?`)
	// entryRe is an entry of docs/DECISIONS.md: "12. **Title.** …".
	entryRe = regexp.MustCompile(`(?m)^(\d+)\. \*\*`)
	// specRe is a citation of the reference spec, which the repo does not hold.
	specRe = regexp.MustCompile(`BEHAVIOR(\.md)?[ §]`)
)

// Every DECISION cited anywhere in the repo (code, tests, scripts, docs) is
// an entry of docs/DECISIONS.md, the entries are numbered 1..n without a
// gap, and nothing cites the reference spec's sections, which the repo does
// not hold: comments point at docs/ instead.
func TestCitedDecisionsExist(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "DECISIONS.md"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[int]bool{}
	for i, m := range entryRe.FindAllStringSubmatch(string(doc), -1) {
		n, _ := strconv.Atoi(m[1])
		if n != i+1 {
			t.Errorf("docs/DECISIONS.md: entry %d is numbered %d", i+1, n)
		}
		have[n] = true
	}
	if len(have) < 20 {
		t.Fatalf("docs/DECISIONS.md has %d entries, want at least 20", len(have))
	}
	cited := 0
	self, _ := filepath.Abs("decisions_test.go")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "bin" || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".txtar", ".json", ".sh", ".txt":
		default:
			return nil
		}
		if abs, _ := filepath.Abs(path); abs == self {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range citeRe.FindAllStringSubmatch(string(b), -1) {
			lo, _ := strconv.Atoi(m[1])
			hi := lo
			if m[2] != "" {
				hi, _ = strconv.Atoi(m[2])
			}
			for n := lo; n <= hi; n++ {
				cited++
				if !have[n] {
					t.Errorf("%s cites DECISION %d, which docs/DECISIONS.md does not hold", rel, n)
				}
			}
		}
		for _, line := range strings.Split(string(b), "\n") {
			if specRe.MatchString(line) {
				t.Errorf("%s cites the reference spec, which the repo does not hold: %q", rel, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited < 30 {
		t.Errorf("found only %d citations: is the walk reading the repo?", cited)
	}
}
