package msgkind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLegacy(t *testing.T) {
	for _, tc := range []struct {
		role, content string
		kind          Kind
		count         int
	}{
		{"system", "[Current plan: v3 — 1/3 done.]", Plan, 0},
		{"system", "[Compacted earlier context: a summary of 4 …]", Digest, 0},
		{"system", "[Context trimmed: 2 tool output(s) truncated …]", ContextTrimmed, 0},
		{"system", "[Context trimmed to survive: 9 earlier message(s) …]", ContextSurvive, 0},
		{"system", "[Context survival mode: the conversation was cut …]", SurvivalMode, 0},
		{"system", "[Session trimmed: 12 older message(s) were removed by odek session trim.]", SessionTrimmed, 12},
		{"system", "[Session storage limit: 3 oldest message group(s) were removed …]", StorageLimit, 3},
		{"system", "[Session trimmed: many older message(s)]", SessionTrimmed, 0},
		{"system", "[Session trimmed: -4 older message(s)]", SessionTrimmed, 0},
		{"system", "[Session trimmed: 99999999999999999999999 older]", SessionTrimmed, 999999999999999999},
		{"system", "[Session trimmed:]", SessionTrimmed, 0},
		{"system", "You are odek. [Current plan: is not a plan here]", "", 0},
		{"system", "[current plan: lower case]", "", 0},
		{"user", "[Current plan: v9 — a task that looks like one]", "", 0},
		{"tool", "[Session trimmed: 5 older message(s)]", "", 0},
		{"assistant", "[Compacted earlier context: no]", "", 0},
	} {
		k, n := Legacy(tc.role, tc.content)
		if k != tc.kind || n != tc.count {
			t.Errorf("Legacy(%s, %q) = %q, %d; want %q, %d", tc.role, tc.content, k, n, tc.kind, tc.count)
		}
	}
}

func TestEveryKindHasAnOpening(t *testing.T) {
	seen := map[string]Kind{}
	for _, k := range Kinds() {
		o := k.Opening()
		if !strings.HasPrefix(o, "[") || !strings.HasSuffix(o, ":") {
			t.Errorf("%s: opening %q", k, o)
		}
		if prev, dup := seen[o]; dup {
			t.Errorf("%s and %s share the opening %q", k, prev, o)
		}
		seen[o] = k
		if got, _ := Legacy("system", o+" 1]"); got != k {
			t.Errorf("Legacy of %s's own opening = %q", k, got)
		}
	}
	if len(openings) != len(Kinds()) || Kind("nope").Opening() != "" {
		t.Errorf("%d openings for %d kinds", len(openings), len(Kinds()))
	}
}

// No package but this one spells a marker's opening: the others use the
// kind, and Opening when they write the text. Tests are free to spell them.
func TestOnlyMsgkindSpellsTheOpenings(t *testing.T) {
	root := filepath.Join("..", "..")
	var checked int
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "bin" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			filepath.Dir(path) == filepath.Join(root, "internal", "msgkind") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for _, k := range Kinds() {
			// The opening without its bracket: "[Current plan:" and "Current plan:" alike.
			if word := strings.TrimPrefix(k.Opening(), "["); strings.Contains(string(data), word) {
				t.Errorf("%s spells %q, the opening of %s: use msgkind.%s", path, word, k, k.name())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d Go files: is the walk rooted at the module?", checked)
	}
}

// name is the Go name of a kind's constant, for the test's message.
func (k Kind) name() string {
	var b strings.Builder
	for w := range strings.SplitSeq(string(k), "_") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func FuzzLegacy(f *testing.F) {
	f.Add("system", "[Session trimmed: 12 older message(s)]")
	f.Add("system", "[Session storage limit: 3 oldest]")
	f.Add("system", "[Current plan: v1]")
	f.Fuzz(func(t *testing.T, role, content string) {
		k, n := Legacy(role, content)
		if n < 0 || (n > 0 && !k.Removal()) {
			t.Fatalf("Legacy(%q, %q) = %q, %d", role, content, k, n)
		}
		if k != "" && (role != "system" || !strings.HasPrefix(content, k.Opening())) {
			t.Fatalf("Legacy(%q, %q) = %q without its opening", role, content, k)
		}
	})
}
