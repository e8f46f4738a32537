package builtin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// benchTree is a 10,000-file source-like tree: 100 directories of 100
// files of about 4 KiB, 1% binary, a .git directory, and a needle in
// every 200th file.
func benchTree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("func return if else for range var const type struct interface package import err nil string int byte map chan go defer select case default")
	for d := range 100 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%02d", d/10), fmt.Sprintf("sub%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			n := d*100 + f
			var sb strings.Builder
			for sb.Len() < 4096 {
				for range 8 {
					sb.WriteString(words[rng.IntN(len(words))])
					sb.WriteByte(' ')
				}
				sb.WriteByte('\n')
			}
			if n%200 == 7 {
				fmt.Fprintf(&sb, "\tneedle_%d := handler(x)\n", n)
			}
			data := sb.String()
			if n%100 == 3 {
				data = "\x00\x01binary" + data
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), []byte(data), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	return root
}

// BenchmarkSearchVsGrep runs search_files' engine and grep -r over the same
// tree, alternating one of each per iteration so that a busy machine slows
// both alike, for a literal and for a regular expression. It reports the
// wall time of each (ms/search, ms/grep) and their ratio.
func BenchmarkSearchVsGrep(b *testing.B) {
	root := benchTree(b)
	dir, err := os.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer dir.Close()
	grep, err := exec.LookPath("grep")
	if err != nil {
		b.Skip("no grep")
	}
	for _, pat := range []struct{ name, re string }{{"literal", "needle_4207"}, {"regexp", `needle_[0-9]+ := \w+\(`}} {
		b.Run(pat.name, func(b *testing.B) {
			re := regexp.MustCompile(pat.re)
			var ours, theirs time.Duration
			for b.Loop() {
				t0 := time.Now()
				res, err := search(context.Background(), searchSpec{root: dir, show: ".", re: re, limit: MaxMatches})
				t1 := time.Now()
				out, gerr := exec.Command(grep, "-rnE", strings.ReplaceAll(pat.re, `\w`, `[[:alnum:]_]`), root).Output()
				ours, theirs = ours+t1.Sub(t0), theirs+time.Since(t1)
				if err != nil || gerr != nil || len(res.lines) != strings.Count(string(out), "\n") {
					b.Fatalf("search: %v, %d matches; grep: %v, %d lines", err, len(res.lines), gerr, strings.Count(string(out), "\n"))
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(ours.Milliseconds())/n, "ms/search")
			b.ReportMetric(float64(theirs.Milliseconds())/n, "ms/grep")
			b.ReportMetric(float64(ours)/float64(theirs), "search/grep")
		})
	}
}
