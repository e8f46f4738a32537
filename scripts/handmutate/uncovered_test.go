package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// applyAt changes the tree, as gremlins does, so a swap that changes how
// an expression groups keeps its grouping (a textual swap would not).
func TestApplyAtKeepsTheGrouping(t *testing.T) {
	src := "package a\n\nfunc f(a, b, c bool) bool {\n\treturn a && b && c\n}\n"
	out, err := applyAt([]byte(src), "INVERT_LOGICAL", 4, 11)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(string(out), "\n")[3]; got != "\treturn (a || b) && c" {
		t.Errorf("got %q, want (a || b) && c", got)
	}
}

func TestApplyAtUsesGremlinsOperators(t *testing.T) {
	src := "package a\n\nfunc f(a, b int) bool {\n\ti := a + b\n\ti++\n\treturn a < b && i >= 0 || -a != b\n}\n"
	cases := []struct {
		mutator   string
		line, col int
		want      string // the mutated line
	}{
		{"ARITHMETIC_BASE", 4, 9, "\ti := a - b"},
		{"INCREMENT_DECREMENT", 5, 3, "\ti--"},
		{"CONDITIONALS_BOUNDARY", 6, 11, "\treturn a <= b && i >= 0 || -a != b"},
		{"CONDITIONALS_NEGATION", 6, 11, "\treturn a >= b && i >= 0 || -a != b"},
		{"CONDITIONALS_NEGATION", 6, 20, "\treturn a < b && i < 0 || -a != b"},
		{"INVERT_LOGICAL", 6, 15, "\treturn a < b || i >= 0 || -a != b"},
		{"INVERT_LOGICAL", 6, 25, "\treturn a < b && i >= 0 && -a != b"},
		{"INVERT_NEGATIVES", 6, 28, "\treturn a < b && i >= 0 || +a != b"},
		{"CONDITIONALS_NEGATION", 6, 31, "\treturn a < b && i >= 0 || -a == b"},
	}
	for _, c := range cases {
		out, err := applyAt([]byte(src), c.mutator, c.line, c.col)
		if err != nil {
			t.Errorf("%s at %d:%d: %v", c.mutator, c.line, c.col, err)
			continue
		}
		lines := strings.Split(string(out), "\n")
		if lines[c.line-1] != c.want {
			t.Errorf("%s at %d:%d: %q, want %q", c.mutator, c.line, c.col, lines[c.line-1], c.want)
		}
		if got, want := strings.Count(string(out), "\n"), strings.Count(src, "\n"); got != want {
			t.Errorf("%s: %d lines, want %d", c.mutator, got, want)
		}
	}
	for _, bad := range []struct {
		mutator   string
		line, col int
		why       string
	}{
		{"ARITHMETIC_BASE", 4, 8, "no operator starts"}, // the space before +
		{"ARITHMETIC_BASE", 6, 11, "does not apply"},    // < is no arithmetic
		{"NO_SUCH_MUTATOR", 4, 9, "unknown mutator"},
		{"ARITHMETIC_BASE", 99, 1, "no token at"},
		{"ARITHMETIC_BASE", 4, 2, "no operator starts"}, // i, an identifier
	} {
		if _, err := applyAt([]byte(src), bad.mutator, bad.line, bad.col); err == nil || !strings.Contains(err.Error(), bad.why) {
			t.Errorf("%s at %d:%d: %v, want an error saying %q", bad.mutator, bad.line, bad.col, err, bad.why)
		}
	}
}

// runUncovered on a real module: a mutant the test notices is KILLED, one it
// does not is LIVED, one that does not build is NOT VIABLE, and fixtures
// and test files in the log are left out; the tree is never written.
func TestRunUncoveredOnAModule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module")
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.26\n",
		"p/p.go":          "package p\n\nfunc Pick(n int) string {\n\tswitch {\n\tcase n < 10:\n\t\treturn \"small\"\n\tcase n >= 100:\n\t\treturn \"big\" + \"!\"\n\t}\n\treturn \"mid\"\n}\n",
		"p/p_test.go":     "package p\n\nimport \"testing\"\n\nfunc TestPick(t *testing.T) {\n\tif Pick(5) != \"small\" || Pick(50) != \"mid\" {\n\t\tt.Fatal(Pick(5), Pick(50))\n\t}\n}\n",
		"p/testdata/x.go": "package x\n",
	}
	for name, body := range files {
		path := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(mod, "gremlins.log")
	if err := os.WriteFile(log, []byte(strings.Join([]string{
		"Starting...",
		" NOT COVERED CONDITIONALS_NEGATION at p.go:5:9",    // n >= 10: Pick(5) is "mid"
		" NOT COVERED CONDITIONALS_BOUNDARY at p.go:7:9",    // n > 100: no test has 100
		" NOT COVERED ARITHMETIC_BASE at p.go:8:16",         // "big" - "!": does not build
		" NOT COVERED ARITHMETIC_BASE at testdata/x.go:1:1", // a fixture: left out
		" NOT COVERED ARITHMETIC_BASE at p_test.go:6:1",     // a test file: left out
		"     LIVED ARITHMETIC_BASE at p.go:1:1",            // not a NOT COVERED line
	}, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(mod)
	var out strings.Builder
	if code := runUncovered(context.Background(), &out, log, "p", t.TempDir(), 2*time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	want := "       KILLED CONDITIONALS_NEGATION at p.go:5:9\n" +
		"        LIVED CONDITIONALS_BOUNDARY at p.go:7:9\n" +
		"   NOT VIABLE ARITHMETIC_BASE at p.go:8:16\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if b, _ := os.ReadFile(filepath.Join(mod, "p/p.go")); string(b) != files["p/p.go"] {
		t.Error("the package's file was written")
	}
}

// A log from other code (a position where no such token is) stops the run
// with exit 2, not a verdict on a mutant that was never made.
func TestRunUncoveredRefusesAStaleLog(t *testing.T) {
	mod := t.TempDir()
	if err := os.WriteFile(filepath.Join(mod, "a.go"), []byte("package a\n\nvar x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(mod, "g.log")
	if err := os.WriteFile(log, []byte(" NOT COVERED ARITHMETIC_BASE at a.go:3:9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if code := runUncovered(context.Background(), &out, log, mod, t.TempDir(), time.Minute); code != 2 {
		t.Errorf("exit %d, want 2; output %q", code, out.String())
	}
}
