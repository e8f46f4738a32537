package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/risk"
)

// These tests pin search_files' results where the work is split (many
// batches of files, one file alone), at its caps (matches, line length,
// file size) and for patterns with and without a required literal
// (gremlins survivors of search.go and search_unix.go).

// searchLines is the result lines of a search_files output, without its
// header and wrapper.
func searchLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n")[1:] {
		if l != "" && !strings.HasPrefix(l, "<untrusted_content_") && !strings.HasPrefix(l, "</untrusted_content_") {
			lines = append(lines, l)
		}
	}
	return lines
}

// A tree of many batches of files: every match comes back, in walk order,
// and the files are counted.
func TestSearchManyBatches(t *testing.T) {
	tools, root, _ := setup(t)
	const files = 20 * searchBatch
	var want []string
	for i := range files {
		name := fmt.Sprintf("d/f%04d.txt", i)
		if i%10 == 0 {
			write(t, root, name, "x\nhit\n")
			want = append(want, name+":2: hit")
		} else {
			write(t, root, name, "miss\n")
		}
	}
	out, err := call(t, tools["search_files"], `{"pattern":"hit"}`)
	if err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf(`%d matches for "hit" in . (%d files searched)`, len(want), files)
	if got := searchLines(out); !strings.HasPrefix(out, head+"\n") || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d lines, header %.80q; want %d, %q", len(got), out, len(want), head)
	}
}

// Matches spread over batches are cut at exactly MaxMatches, keeping the
// first ones in file order.
func TestSearchCapAcrossBatches(t *testing.T) {
	tools, root, _ := setup(t)
	for i := range 50 { // 5 matches a file: the first batch holds 160, the second 90
		write(t, root, fmt.Sprintf("f%02d.txt", i), strings.Repeat("hit\n", 5))
	}
	out, err := call(t, tools["search_files"], `{"pattern":"hit"}`)
	if err != nil {
		t.Fatal(err)
	}
	got := searchLines(out)
	if !strings.HasPrefix(out, fmt.Sprintf("%d matches", MaxMatches)) || !strings.Contains(out, "stopped at 200") || len(got) != MaxMatches {
		t.Fatalf("%d lines: %.100s", len(got), out)
	}
	if got[0] != "f00.txt:1: hit" || got[MaxMatches-1] != "f39.txt:5: hit" {
		t.Fatalf("first %q, last %q", got[0], got[MaxMatches-1])
	}
}

// A single file as the path: the glob applies to it, its matches are
// capped at MaxMatches, and a complete result says so.
func TestSearchOneFile(t *testing.T) {
	tools, root, _ := setup(t)
	write(t, root, "many.txt", strings.Repeat("hit\n", MaxMatches+1))
	write(t, root, "few.txt", "hit\nmiss\nhit\n")
	sf := tools["search_files"]
	out, err := call(t, sf, `{"pattern":"hit","path":"many.txt"}`)
	if err != nil || len(searchLines(out)) != MaxMatches || !strings.Contains(out, "; stopped at 200") {
		t.Fatalf("%d lines, %v: %.100s", len(searchLines(out)), err, out)
	}
	out, err = call(t, sf, `{"pattern":"hit","path":"few.txt"}`)
	if err != nil || !strings.HasPrefix(out, `2 matches for "hit" in few.txt (1 files searched)`) {
		t.Fatalf("%v: %.100s", err, out)
	}
	out, err = call(t, sf, `{"pattern":"hit","path":"few.txt","glob":"*.go"}`)
	if err != nil || !strings.HasPrefix(out, `0 matches for "hit" in few.txt (0 files searched)`) {
		t.Fatalf("a file the glob leaves out: %v: %.100s", err, out)
	}
}

// Patterns with no literal every match must hold, or with one beside a
// character class, find the same lines as a plain line-by-line search:
// empty lines match ^$ (and nothing past the last newline does), and the
// class is no literal.
func TestSearchPatternsWithoutRequiredLiteral(t *testing.T) {
	tools, root, _ := setup(t)
	write(t, root, "a.txt", "a\n\nb\n")
	write(t, root, "b.txt", "5x\nx\n")
	write(t, root, "c.txt", "")
	write(t, root, "d.txt", "\nq7\n")
	for _, tc := range []struct{ pattern, path, want string }{
		{`^$`, "a.txt", "a.txt:2: "},
		{`^$`, "b.txt", ""},
		{`^$`, "c.txt", ""},
		{`^$`, "d.txt", "d.txt:1: "},
		{`[0-9]x`, "b.txt", "b.txt:1: 5x"},
		{`\\d`, "d.txt", "d.txt:2: q7"},
		{`q\\d`, "d.txt", "d.txt:2: q7"},
		{`^x$`, "b.txt", "b.txt:2: x"},
	} {
		out, err := call(t, tools["search_files"], `{"pattern":"`+tc.pattern+`","path":"`+tc.path+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(searchLines(out), "\n"); got != tc.want {
			t.Errorf("%s in %s: got %q, want %q", tc.pattern, tc.path, got, tc.want)
		}
	}
}

// A matching line of exactly MaxMatchLine bytes is shown whole; a longer
// one is cut there with a marker.
func TestSearchLineCutAtCap(t *testing.T) {
	tools, root, _ := setup(t)
	exact := "hit" + strings.Repeat("a", MaxMatchLine-3)
	write(t, root, "f.txt", exact+"\n"+exact+"b\n")
	out, err := call(t, tools["search_files"], `{"pattern":"hit"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "f.txt:1: " + exact + "\nf.txt:2: " + exact + " …"
	if got := strings.Join(searchLines(out), "\n"); got != want {
		t.Fatalf("got %q", got)
	}
}

// A file of exactly MaxSearchFile bytes is searched; one byte more is
// skipped (the files are sparse past their text head, so they are cheap to
// make, but reading 64 MiB is not: -short leaves this to TestReadFDLimit,
// which checks the same bound with a smaller limit).
func TestSearchFileSizeCap(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB files")
	}
	t.Parallel()
	tools, root, _ := setup(t)
	for name, size := range map[string]int64{"exact.txt": MaxSearchFile, "over.txt": MaxSearchFile + 1} {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, []byte("needle\n"+strings.Repeat("text\n", 2000)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
	}
	out, err := call(t, tools["search_files"], `{"pattern":"needle"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(searchLines(out), "\n"); got != "exact.txt:1: needle" {
		t.Fatalf("got %q", got)
	}
	for name, want := range map[string]int{"exact.txt": 1, "over.txt": 0} {
		out, err := call(t, tools["search_files"], `{"pattern":"needle","path":"`+name+`"}`)
		if err != nil || len(searchLines(out)) != want {
			t.Errorf("%s alone: %v %.100s", name, err, out)
		}
	}
}

// A search whose context is cancelled ends with the cancel, not with the
// matches of the files it got to, passed off as the whole result.
func TestSearchCancelled(t *testing.T) {
	tools, root, _ := setup(t)
	write(t, root, "a.txt", "hit\n")
	args := json.RawMessage(`{"pattern":"hit"}`)
	a, err := tools["search_files"].AssessRisk(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(risk.WithApproved(context.Background(), a))
	cancel()
	if out, err := tools["search_files"].Call(ctx, args); !errors.Is(err, context.Canceled) || out != "" {
		t.Fatalf("a cancelled search: %q, %v", out, err)
	}
}
