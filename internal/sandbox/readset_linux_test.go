package sandbox

import (
	"errors"
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

// TestPrepareLazily: PrepareLazily opens the granted paths but builds no
// ruleset; the first Command builds it, a copy with the network changed
// launches with the same ruleset (no second walk), and Within drops what
// was held (a narrowed policy has other paths).
func TestPrepareLazily(t *testing.T) {
	if Probe().LandlockABI == 0 {
		t.Skip("no Landlock")
	}
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lazy := Policy{Mode: ModeWorkspaceWrite, Workspace: home, Landlock: true,
		Protected: DefaultProtected(home, filepath.Join(home, ".odek"))}
	if warns, err := lazy.PrepareLazily(); err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	if lazy.held == nil || lazy.held.ruleset != nil || len(lazy.held.roots) == 0 {
		t.Fatalf("PrepareLazily: held %+v; want the paths open and the ruleset put off", lazy.held)
	}
	launch := func(p Policy) (Launch, Policy) {
		t.Helper()
		l, err := Command("/self", p, "true")
		if err != nil {
			t.Fatal(err)
		}
		d, err := decodeLaunch(l.Argv[2])
		if err != nil {
			t.Fatal(err)
		}
		return l, d
	}
	l1, d1 := launch(lazy)
	if len(l1.Files) == 0 || l1.Files[0] != lazy.held.ruleset || d1.Launch == nil || !d1.Launch.Ruleset {
		t.Fatalf("the first launch carries no held ruleset: files %v, launch %+v", l1.Files, d1.Launch)
	}
	if !slices.Contains(d1.Launch.Roots, home) {
		t.Errorf("the launch's roots %q miss the workspace", d1.Launch.Roots)
	}
	withNet := lazy
	withNet.Network = true
	l2, d2 := launch(withNet)
	if l2.Files[0] != l1.Files[0] || !d2.Network {
		t.Error("a copy with the network on built a ruleset of its own")
	}
	if n := lazy.Within(Policy{Mode: ModeReadOnly, Workspace: home}); n.held != nil || n.Launch != nil {
		t.Error("Within kept the held rules of other paths")
	}
	if _, err := Command("/self", lazy.Within(Policy{Mode: ModeReadOnly, Workspace: home}), "true"); !errors.Is(err, ErrNotPrepared) {
		t.Errorf("an unprepared narrowed policy launched: %v", err)
	}
	off := Policy{Mode: ModeOff}
	if _, err := off.PrepareLazily(); err != nil || off.held != nil {
		t.Errorf("PrepareLazily armed a policy that confines nothing (%v)", err)
	}
	if l, _ := launch(off); len(l.Files) != 0 {
		t.Error("mode off carries descriptors")
	}
	lazy.Release()
	if _, err := Command("/self", lazy, "true"); !errors.Is(err, ErrReleased) && !errors.Is(err, os.ErrClosed) {
		t.Logf("after Release: %v", err)
	}
}

// TestPrepareLazilyConcurrent: parallel shell calls launch copies of one
// lazily prepared policy at once; the ruleset is built once and every
// launch carries it (run with -race).
func TestPrepareLazilyConcurrent(t *testing.T) {
	if Probe().LandlockABI == 0 {
		t.Skip("no Landlock")
	}
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: home, Landlock: true, Protected: DefaultProtected(home, "")}
	if _, err := p.PrepareLazily(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]*os.File, 4)
	for i := range got {
		wg.Go(func() {
			c := p
			c.Network = i%2 == 0
			l, err := Command("/self", c, "true")
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = l.Files[0]
		})
	}
	wg.Wait()
	for i, g := range got {
		if g == nil || g != got[0] {
			t.Errorf("launch %d carries ruleset %v, launch 0 %v", i, g, got[0])
		}
	}
}

// TestReadSet: the protected paths and nothing else are left out; their
// ancestors may only be listed; a symlink to a protected dir is not granted.
func TestReadSet(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".ssh", "src", ".config/gcloud", ".config/nvim"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "keys")); err != nil {
		t.Fatal(err)
	}
	trees, files, list := readSet(DefaultProtected(home, filepath.Join(home, ".odek")))
	for _, want := range []string{filepath.Join(home, "src"), filepath.Join(home, ".config/nvim"), "/usr"} {
		if !slices.Contains(trees, want) {
			t.Errorf("%s not readable", want)
		}
	}
	if !slices.Contains(files, filepath.Join(home, ".gitconfig")) {
		t.Error("~/.gitconfig not readable")
	}
	for _, no := range []string{".ssh", "keys", ".config/gcloud", ".config", ""} {
		if p := filepath.Join(home, no); slices.Contains(trees, p) || slices.Contains(files, p) {
			t.Errorf("%s is granted for reading", p)
		}
	}
	for _, anc := range []string{"/", home, filepath.Join(home, ".config")} {
		if !slices.Contains(list, anc) {
			t.Errorf("ancestor %s cannot be listed", anc)
		}
	}
}
