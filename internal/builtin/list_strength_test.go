package builtin

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/risk"
)

// These tests pin list_dir's and glob's order, caps and bases (gremlins
// survivors of fs.go and list.go).

// bodyLines is a tool output's lines below its header, without the
// untrusted-content wrapper.
func bodyLines(out string) []string { return searchLines(out) }

// list_dir lists in name order at every level, whatever order the
// directory holds its entries in.
func TestListDirSorted(t *testing.T) {
	tools, root, _ := setup(t)
	for _, n := range []string{"m/z", "b", "zz", "a", "m/c", "m/a"} {
		write(t, root, n, "")
	}
	out, err := call(t, tools["list_dir"], `{"depth":2}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(bodyLines(out), " "); got != "a b m/ m/a m/c m/z zz" {
		t.Fatalf("got %q", got)
	}
}

// Past MaxEntries, list_dir and glob stop and say so; neither fails.
func TestListAndGlobStopAtMaxEntries(t *testing.T) {
	tools, root, _ := setup(t)
	for i := range MaxEntries + 1 {
		write(t, root, fmt.Sprintf("d/f%04d.txt", i), "")
	}
	out, err := call(t, tools["list_dir"], `{"path":"d"}`)
	if err != nil || !strings.HasPrefix(out, fmt.Sprintf("d: %d entries (stopped at %d;", MaxEntries, MaxEntries)) || len(bodyLines(out)) != MaxEntries {
		t.Fatalf("list_dir: %v %.100s", err, out)
	}
	out, err = call(t, tools["glob"], `{"pattern":"d/*.txt"}`)
	if err != nil || !strings.HasPrefix(out, fmt.Sprintf("d/*.txt: %d matches (stopped early", MaxEntries)) || len(bodyLines(out)) != MaxEntries {
		t.Fatalf("glob: %v %.100s", err, out)
	}
}

// A glob walk looks at no more than its visit cap of entries, and stops
// when its context ends; under the cap it finds everything.
func TestGlobVisitCap(t *testing.T) {
	_, root, _ := setup(t)
	for _, n := range []string{"a.go", "b.txt", "sub/c.go", "sub/d.go"} {
		write(t, root, n, "")
	}
	f := openDir(t, root)
	segs := []string{"**", "*.go"}
	const entries = 5 // a.go b.txt sub sub/c.go sub/d.go
	m, truncated, err := globWalk(context.Background(), f, ".", segs, entries, nil)
	if err != nil || truncated || strings.Join(m, " ") != "a.go sub/c.go sub/d.go" {
		t.Fatalf("cap %d: %q, truncated %v, %v", entries, m, truncated, err)
	}
	m, truncated, err = globWalk(context.Background(), f, ".", segs, entries-1, nil)
	if err != nil || !truncated || strings.Join(m, " ") != "a.go sub/c.go" {
		t.Fatalf("cap %d: %q, truncated %v, %v", entries-1, m, truncated, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m, truncated, err = globWalk(ctx, f, ".", segs, entries, nil); err != nil || !truncated || len(m) != 0 {
		t.Fatalf("cancelled: %q, truncated %v, %v", m, truncated, err)
	}
}

// A pattern without "**" walks only as deep as it reaches: a directory no
// match can be below is skipped, so a large subtree neither uses up the
// visit cap nor hides the matches after it.
func TestGlobSkipsSubtreesNoMatchIsBelow(t *testing.T) {
	_, root, _ := setup(t)
	for i := range 40 {
		write(t, root, fmt.Sprintf("a/deep/f%02d.md", i), "")
	}
	for _, n := range []string{"b/x.md", "b/c/y.md", "z.md", "zz/w.go"} {
		write(t, root, n, "")
	}
	f := openDir(t, root)
	for _, c := range []struct {
		pattern, want string
	}{
		{"*.md", "z.md"},
		{"*/*.md", "b/x.md"},
		{"b/*/*.md", "b/c/y.md"},
		{"[bz]*/**/*.md", "b/c/y.md b/x.md"},
		{"*/deep", "a/deep"},
	} {
		// 12 visits cannot cover a/deep's 40 files: only skipping it finds z.md.
		m, truncated, err := globWalk(context.Background(), f, ".", strings.Split(c.pattern, "/"), 12, nil)
		if sortJoin(m) != c.want || truncated || err != nil {
			t.Errorf("%s: %q, truncated %v, %v; want %q", c.pattern, m, truncated, err, c.want)
		}
	}
	// With "**" first every directory may hold a match: the cap stops it.
	if _, truncated, _ := globWalk(context.Background(), f, ".", []string{"**", "*.md"}, 12, nil); !truncated {
		t.Error(`"**/*.md" looked at more than its visit cap`)
	}
}

func sortJoin(m []string) string {
	m = slices.Clone(m)
	slices.Sort(m)
	return strings.Join(m, " ")
}

// A pattern whose wildcard follows the leading "/" starts at "/": it is
// assessed, and summarised, as a read of "/" (outside the working
// directory), not of the working directory. (Calling it would walk the
// whole file system.)
func TestGlobFromRoot(t *testing.T) {
	tools, _, _ := setup(t)
	g, err := tools["glob"].AssessRisk([]byte(`{"pattern":"/e*"}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := tools["list_dir"].AssessRisk([]byte(`{"path":"/"}`))
	if err != nil || g.Class != l.Class || g.Class == risk.Safe {
		t.Fatalf("glob /e* assessed %v, list_dir / %v (%v)", g.Class, l.Class, err)
	}
	if s := tools["glob"].ArgsSummary([]byte(`{"pattern":"/e*"}`)); s["class"] != l.Class.String() || s["path"] != "/e*" {
		t.Fatalf("summary %v", s)
	}
}

// A trailing "**" matches everything below, at any depth.
func TestGlobTrailingDoubleStar(t *testing.T) {
	tools, root, _ := setup(t)
	for _, n := range []string{"sub/a.txt", "sub/d/b.txt", "other.txt"} {
		write(t, root, n, "")
	}
	for pattern, want := range map[string]string{
		"sub/**": "sub/a.txt sub/d sub/d/b.txt",
		"**":     "other.txt sub sub/a.txt sub/d sub/d/b.txt",
	} {
		out, err := call(t, tools["glob"], `{"pattern":"`+pattern+`"}`)
		if got := strings.Join(bodyLines(out), " "); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", pattern, got, err, want)
		}
	}
}
