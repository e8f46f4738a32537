package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// readSetByScan is readSet as it was first written, asking isUnder of every
// protected path for every entry: the oracle the set-based walk must agree
// with.
func readSetByScan(protected []string) (trees, files, listOnly []string) {
	prot := resolveAll(protected)
	var walk func(dir string, isDir bool)
	walk = func(dir string, isDir bool) {
		switch {
		case slices.Contains(prot, dir):
			return
		case !isDir:
			files = append(files, dir)
			return
		case !slices.ContainsFunc(prot, func(p string) bool { return isUnder(p, dir) }):
			trees = append(trees, dir)
			return
		}
		listOnly = append(listOnly, dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Type()&os.ModeSymlink != 0 {
				continue
			}
			walk(filepath.Join(dir, e.Name()), e.IsDir())
		}
	}
	walk("/", true)
	return trees, files, listOnly
}

// TestReadSetAgreesWithScan: on a home with nested protected paths, a
// protected path inside another, one that is a symlink, one that does not
// exist, a sibling whose name extends a protected one (".ssh2" beside
// ".ssh"), and "/" itself, the walk grants exactly what the scan did.
func TestReadSetAgreesWithScan(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".ssh", ".ssh2", "src/a/b", ".config/gcloud/x", ".config/nvim", "deep/er/still"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".gitconfig", "src/a/f", "deep/er/f"} {
		if err := os.WriteFile(filepath.Join(home, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, "deep"), filepath.Join(home, "link")); err != nil {
		t.Fatal(err)
	}
	base := DefaultProtected(home, filepath.Join(home, ".odek"))
	for _, prot := range [][]string{
		base,
		append(slices.Clone(base), filepath.Join(home, "deep/er/still"), filepath.Join(home, "deep"), filepath.Join(home, "link/er"), filepath.Join(home, "no/such")),
		{filepath.Join(home, ".ssh")},
		{"/"},
		nil,
	} {
		// Both walk the live file system from "/": only the test's home
		// and its ancestors hold still while other processes churn /tmp.
		mine := func(l []string) []string {
			return slices.DeleteFunc(l, func(p string) bool { return !isUnder(p, home) && !isUnder(home, p) })
		}
		gt, gf, gl := readSet(prot)
		wt, wf, wl := readSetByScan(prot)
		gt, gf, gl, wt, wf, wl = mine(gt), mine(gf), mine(gl), mine(wt), mine(wf), mine(wl)
		for _, c := range []struct {
			what      string
			got, want []string
		}{{"trees", gt, wt}, {"files", gf, wf}, {"list-only", gl, wl}} {
			if len(c.want) == 0 && len(prot) > 0 && prot[0] != "/" && c.what != "files" {
				t.Errorf("protected %q: the scan found no %s under %s: the test checks nothing", prot, c.what, home)
			}
			if !slices.Equal(c.got, c.want) {
				t.Errorf("protected %q: %s differ:\n got  %q\n want %q", prot, c.what, c.got, c.want)
			}
		}
	}
}

// TestPrepareLazily: the first Command of a lazily prepared policy carries
// the read set Prepare computes, a copy with the network changed carries
// the same one without a second walk, and Within and Prepare drop the
// lazy state (a narrowed policy has other protected paths).
func TestPrepareLazily(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := Policy{Mode: ModeWorkspaceWrite, Workspace: home, Landlock: true,
		Protected: DefaultProtected(home, filepath.Join(home, ".odek"))}
	eager := base
	eager.Prepare()
	if !eager.Prepared {
		skipBigReadSet(t, base.Protected)
		t.Fatal("Prepare did not prepare; nothing to compare")
	}
	lazy := base
	lazy.PrepareLazily()
	if lazy.Prepared || lazy.lazy == nil {
		t.Fatalf("PrepareLazily: Prepared %v, lazy %v; want the walk put off", lazy.Prepared, lazy.lazy)
	}
	decoded := func(p Policy) Policy {
		t.Helper()
		argv, err := Command("/self", p, "true")
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decode(argv[2])
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	same := func(a, b Policy) bool {
		return slices.Equal(a.ReadTrees, b.ReadTrees) && slices.Equal(a.ReadFiles, b.ReadFiles) && slices.Equal(a.ListOnly, b.ListOnly)
	}
	// The walk lists the ancestors' entries, the shared temp dir's among
	// them, which other processes change. A lazy launch counts as equal
	// when a walk made before it and one made after it agree with it: a
	// directory that came and went in between makes the round retry.
	var got Policy
	for range 20 {
		lazy = base
		lazy.PrepareLazily()
		got = decoded(lazy)
		after := base
		after.Prepare()
		if same(eager, after) && same(got, eager) {
			break
		}
		eager = after
	}
	if !got.Prepared || !same(got, eager) {
		t.Errorf("the lazily prepared launch carries another read set than Prepare's (prepared %v, %d trees, want %d)", got.Prepared, len(got.ReadTrees), len(eager.ReadTrees))
	}
	withNet := lazy
	withNet.Network = true
	lazy.lazy.trees = append([]string{"/marker"}, lazy.lazy.trees...) // a second walk would lose it
	if got := decoded(withNet); !got.Network || len(got.ReadTrees) == 0 || got.ReadTrees[0] != "/marker" {
		t.Errorf("a copy computed its own read set (network %v, first tree %q)", got.Network, got.ReadTrees[0])
	}
	if n := lazy.Within(Policy{Mode: ModeReadOnly, Workspace: home}); n.lazy != nil || n.Prepared {
		t.Error("Within kept the lazy read set of other protected paths")
	}
	off := Policy{Mode: ModeOff}
	off.PrepareLazily()
	if off.lazy != nil {
		t.Error("PrepareLazily armed a policy that confines nothing")
	}
	if got := decoded(off); got.Prepared {
		t.Error("mode off was prepared")
	}
}

// TestPrepareLazilyConcurrent: parallel shell calls launch copies of one
// lazily prepared policy at once; the read set is computed once and every
// launch carries it (run with -race).
func TestPrepareLazilyConcurrent(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: home, Landlock: true, Protected: DefaultProtected(home, "")}
	if ok, _, _, _ := preparedReadSet(p.Protected); !ok {
		skipBigReadSet(t, p.Protected)
	}
	p.PrepareLazily()
	var wg sync.WaitGroup
	got := make([]Policy, 4)
	for i := range got {
		wg.Go(func() {
			c := p
			c.Network = i%2 == 0
			argv, err := Command("/self", c, "true")
			if err != nil {
				t.Error(err)
				return
			}
			got[i], err = Decode(argv[2])
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		if !g.Prepared || !slices.Equal(g.ReadTrees, got[0].ReadTrees) {
			t.Errorf("launch %d: prepared %v, %d trees (launch 0: %d)", i, g.Prepared, len(g.ReadTrees), len(got[0].ReadTrees))
		}
	}
}

// skipBigReadSet skips a test whose temporary home lies in a directory too
// full for a prepared read set (over maxPrepared, as a /tmp holding
// thousands of old test directories is): Prepare then rightly declines, and
// there is nothing to compare. Any other reason to decline fails the test.
func skipBigReadSet(t *testing.T, protected []string) {
	t.Helper()
	if size := readSetSize(readSet(protected)); size > maxPrepared {
		t.Skipf("the read set is %d bytes (limit %d): %s holds too many entries for this test", size, maxPrepared, os.TempDir())
	}
}
