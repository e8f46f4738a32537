package builtin

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/sandbox"
)

// BenchmarkSearchMap is what the sandbox's map adds to search_files on
// the 10,000-file tree: a Guard's check of each directory entered and of
// each file read (an fstat, a lookup), against the same search without
// it, alternating one of each per iteration.
func BenchmarkSearchMap(b *testing.B) {
	root, err := filepath.EvalSymlinks(benchTree(b))
	if err != nil {
		b.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	acc, err := sandbox.NewAccess(sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Workspace: root,
		Protected: sandbox.DefaultProtected(home, filepath.Join(home, ".odek"))})
	if err != nil {
		b.Fatal(err)
	}
	acc.Prepare()
	dir, err := os.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer dir.Close()
	re := regexp.MustCompile("needle_4207")
	var plain, mapped time.Duration
	for b.Loop() {
		t0 := time.Now()
		r1, err1 := search(context.Background(), searchSpec{root: dir, show: ".", re: re, limit: MaxMatches})
		t1 := time.Now()
		g := acc.Guard()
		if err := g.Read(nil, dir, root); err != nil {
			b.Fatal(err)
		}
		spec := searchSpec{root: dir, show: ".", re: re, limit: MaxMatches, enter: entryCheck(g, root),
			check: func(fd int, rel string) bool { return g.Entry(fd, path.Join(root, rel)) == nil }}
		r2, err2 := search(context.Background(), spec)
		plain, mapped = plain+t1.Sub(t0), mapped+time.Since(t1)
		if err1 != nil || err2 != nil || len(r1.lines) != 1 || len(r2.lines) != 1 {
			b.Fatalf("%v %v %d %d", err1, err2, len(r1.lines), len(r2.lines))
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(plain.Microseconds())/1000/n, "ms/plain")
	b.ReportMetric(float64(mapped.Microseconds())/1000/n, "ms/map")
	b.ReportMetric(float64(mapped)/float64(plain), "map/plain")
}
