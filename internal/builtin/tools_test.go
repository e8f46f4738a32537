package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/risk"
)

type memStore struct{ saved [][]byte }

func (m *memStore) SaveResult(_, _ string, data []byte) (string, error) {
	m.saved = append(m.saved, append([]byte(nil), data...))
	return "result-1", nil
}

func setup(t *testing.T) (map[string]Tool, string, *memStore) {
	t.Helper()
	root := t.TempDir()
	c, err := risk.New(risk.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	st := &memStore{}
	tools := map[string]Tool{}
	for _, tl := range New(Options{Classifier: c, Store: st, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root}}) {
		tools[tl.Name()] = tl
	}
	return tools, c.Root(), st
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call assesses like the loop does, puts the approval on ctx and calls.
func call(t *testing.T, tl Tool, args string) (string, error) {
	t.Helper()
	a, err := tl.AssessRisk(json.RawMessage(args))
	if err != nil {
		return "", err
	}
	return tl.Call(risk.WithApproved(context.Background(), a), json.RawMessage(args))
}

func TestToolsDescribeThemselves(t *testing.T) {
	tools, _, _ := setup(t)
	if len(tools) != 7 {
		t.Fatalf("%d tools", len(tools))
	}
	for name, tl := range tools {
		var s map[string]any
		if err := json.Unmarshal(tl.Schema(), &s); err != nil || s["type"] != "object" {
			t.Errorf("%s: schema %s: %v", name, tl.Schema(), err)
		}
		if len(tl.Description()) < 80 {
			t.Errorf("%s: description too thin: %q", name, tl.Description())
		}
		if _, err := tl.AssessRisk(json.RawMessage(`{"nope":1}`)); err == nil || !strings.Contains(err.Error(), `unknown field "nope"`) {
			t.Errorf("%s: an unknown argument gave %v", name, err)
		}
	}
}

func TestReadFile(t *testing.T) {
	tools, root, _ := setup(t)
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		b.WriteString("line\n")
	}
	write(t, root, "big.txt", b.String())
	write(t, root, "small.txt", "a\nb\nc")
	write(t, root, "bin.dat", "abc\x00def")
	write(t, root, "long.txt", strings.Repeat("x", 70000)+"\nnext\n")
	rd := tools["read_file"]
	out, err := call(t, rd, `{"path":"small.txt"}`)
	if err != nil || !strings.Contains(out, "lines 1-3 (end of file)") || !strings.Contains(out, "     2\tb\n") || !strings.Contains(out, "<untrusted_content_") {
		t.Fatalf("small: %v\n%s", err, out)
	}
	out, _ = call(t, rd, `{"path":"big.txt"}`)
	if !strings.Contains(out, "lines 1-2000; more lines follow, continue with offset=2001") {
		t.Fatalf("big: %s", out[:200])
	}
	out, _ = call(t, rd, `{"path":"big.txt","offset":2990,"limit":50}`)
	if !strings.Contains(out, "lines 2990-3000 (end of file)") || !strings.Contains(out, "  3000\tline") {
		t.Fatalf("paged: %s", out)
	}
	if out, _ := call(t, rd, `{"path":"bin.dat"}`); !strings.Contains(out, "binary file (7 bytes); not shown") {
		t.Fatalf("binary: %s", out)
	}
	out, _ = call(t, rd, `{"path":"long.txt"}`)
	if !strings.Contains(out, "[line cut at 2000 bytes]") || !strings.Contains(out, "     2\tnext") {
		t.Fatalf("long line: %.300s", out)
	}
	for args, want := range map[string]string{
		`{"path":"missing.txt"}`:            "no such file",
		`{"path":"."}`:                      "is a directory (use list_dir)",
		`{}`:                                "path is required",
		`{"path":"small.txt","offset":10}`:  "offset 10 is past the end",
		`{"path":"small.txt","limit":-1}`:   "limit -1 must be >= 1",
		`{"path":"small.txt","offset":"x"}`: "invalid arguments",
	} {
		if _, err := call(t, rd, args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

func TestWriteAndPatch(t *testing.T) {
	tools, root, _ := setup(t)
	out, err := call(t, tools["write_file"], `{"path":"a/b/new.go","content":"package x\n\nfunc A() {}\nfunc B() {}\n"}`)
	if err != nil || !strings.Contains(out, "created a/b/new.go (35 bytes, 4 lines)") {
		t.Fatalf("%v %s", err, out)
	}
	if err := os.Chmod(filepath.Join(root, "a/b/new.go"), 0o600); err != nil {
		t.Fatal(err)
	}
	pt := tools["patch"]
	out, err = call(t, pt, `{"path":"a/b/new.go","old":"func A() {}","new":"func A() int { return 1 }"}`)
	if err != nil || !strings.Contains(out, "patched a/b/new.go: replaced lines 3-3") {
		t.Fatalf("%v %s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(root, "a/b/new.go"))
	if string(got) != "package x\n\nfunc A() int { return 1 }\nfunc B() {}\n" {
		t.Fatalf("file now %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(root, "a/b/new.go")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("patch changed the mode to %v", fi.Mode())
	}
	for args, want := range map[string]string{
		`{"path":"a/b/new.go","old":"func C()","new":"x"}`:      "old text not found (0 matches)",
		`{"path":"a/b/new.go","old":"func ","new":"x"}`:         "old text matches 2 times",
		`{"path":"a/b/new.go","old":"  func B() {}","new":"x"}`: "does match if indentation and trailing spaces are ignored",
		`{"path":"a/b/new.go","old":"","new":"x"}`:              "old must not be empty",
		`{"path":"nope.go","old":"a","new":"b"}`:                "no such file",
	} {
		if _, err := call(t, pt, args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
	if _, err := call(t, tools["write_file"], `{"path":"x"}`); err == nil || !strings.Contains(err.Error(), "content is required") {
		t.Errorf("missing content: %v", err)
	}
	if _, err := call(t, tools["write_file"], `{"path":"a","content":"x"}`); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("write over a directory: %v", err)
	}
}

// A symlink swapped in between approval and action is caught: the call
// fails instead of writing outside the working directory.
func TestSwappedSymlinkCaught(t *testing.T) {
	tools, root, _ := setup(t)
	outside := t.TempDir()
	args := `{"path":"sub/f.txt","content":"x"}`
	a, err := tools["write_file"].AssessRisk(json.RawMessage(args))
	if err != nil || a.Class != risk.LocalWrite {
		t.Fatalf("assessed %v %v", a.Class, err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	_, err = tools["write_file"].Call(risk.WithApproved(context.Background(), a), json.RawMessage(args))
	var ce *ChangedError
	if !errors.As(err, &ce) || ce.Now.Class != risk.SystemWrite {
		t.Fatalf("Call = %v, want a ChangedError to system_write", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); err == nil {
		t.Fatal("the write landed outside the working directory")
	}
}

func TestListAndGlob(t *testing.T) {
	tools, root, _ := setup(t)
	for _, f := range []string{"go.mod", "cmd/odek/main.go", "cmd/odek/run.go", "internal/x/x_test.go", ".git/HEAD", "docs/a.md"} {
		write(t, root, f, "x\n")
	}
	if err := os.Symlink("go.mod", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	out, err := call(t, tools["list_dir"], `{}`)
	if err != nil || !strings.Contains(out, "cmd/\n") || !strings.Contains(out, "link -> go.mod") || strings.Contains(out, "cmd/odek") {
		t.Fatalf("list depth 1: %v\n%s", err, out)
	}
	out, _ = call(t, tools["list_dir"], `{"path":".","depth":3}`)
	if !strings.Contains(out, "cmd/odek/main.go") || strings.Contains(out, ".git/HEAD") || !strings.Contains(out, ".git/") {
		t.Fatalf("list depth 3:\n%s", out)
	}
	for pattern, want := range map[string][]string{
		"**/*.go":        {"cmd/odek/main.go", "cmd/odek/run.go", "internal/x/x_test.go"},
		"cmd/**/main.go": {"cmd/odek/main.go"},
		"*.mod":          {"go.mod"},
		"**/HEAD":        nil,
	} {
		out, err := call(t, tools["glob"], `{"pattern":"`+pattern+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("glob %s misses %s:\n%s", pattern, w, out)
			}
		}
		if !strings.Contains(out, pattern+": "+itoa(len(want))+" matches") {
			t.Errorf("glob %s:\n%s", pattern, out)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestSearchFiles(t *testing.T) {
	tools, root, _ := setup(t)
	write(t, root, "a.go", "package a\nfunc Handler() {}\n// handler\n")
	write(t, root, "sub/b.go", "func OtherHandler() {}\n")
	write(t, root, "sub/c.txt", "func TxtHandler() {}\n")
	write(t, root, "bin.o", "func BinHandler\x00\n")
	write(t, root, ".git/x.go", "func GitHandler() {}\n")
	sf := tools["search_files"]
	out, err := call(t, sf, `{"pattern":"func \\w*Handler\\("}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"a.go:2: func Handler() {}", "sub/b.go:1: func OtherHandler() {}", "sub/c.txt:1:"} {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "Bin") || strings.Contains(out, "Git") || !strings.HasPrefix(out, "3 matches") {
		t.Errorf("binary or .git searched, or wrong count:\n%s", out)
	}
	out, _ = call(t, sf, `{"pattern":"(?i)HANDLER","glob":"*.go","path":"."}`)
	if !strings.HasPrefix(out, "3 matches") || strings.Contains(out, "c.txt") {
		t.Errorf("glob/fold:\n%s", out)
	}
	out, _ = call(t, sf, `{"pattern":"Handler","path":"sub/b.go"}`)
	if !strings.Contains(out, "sub/b.go:1:") {
		t.Errorf("single file:\n%s", out)
	}
	if _, err := call(t, sf, `{"pattern":"("}`); err == nil || !strings.Contains(err.Error(), "pattern: error parsing regexp") {
		t.Errorf("bad pattern: %v", err)
	}
}

// Results are bounded and always the first ones in file order.
func TestSearchBoundedAndOrdered(t *testing.T) {
	tools, root, _ := setup(t)
	for i := range 50 {
		write(t, root, filepath.Join("d", string(rune('a'+i%26))+itoa(i)+".txt"), strings.Repeat("hit\n", 10))
	}
	first, _ := call(t, tools["search_files"], `{"pattern":"hit"}`)
	for range 5 {
		again, _ := call(t, tools["search_files"], `{"pattern":"hit"}`)
		if stripNonce(first, again) != first {
			t.Fatalf("results differ between runs:\n%.600s\n----\n%.600s", first, again)
		}
	}
	if !strings.HasPrefix(first, "200 matches") || !strings.Contains(first, "stopped at 200") {
		t.Fatalf("%.200s", first)
	}
}

// stripNonce makes b's wrapper nonce a's, so outputs compare.
func stripNonce(a, b string) string {
	na, nb := nonce(a), nonce(b)
	return strings.ReplaceAll(b, nb, na)
}

func nonce(s string) string {
	i := strings.Index(s, "<untrusted_content_")
	if i < 0 {
		return ""
	}
	return s[i+19 : i+35]
}

// A file larger than one read is read whole; a binary one never past its head.
func TestSearchLargeFiles(t *testing.T) {
	tools, root, _ := setup(t)
	write(t, root, "big.txt", strings.Repeat("filler line\n", 40000)+"the needle\n")
	write(t, root, "big.bin", "\x00"+strings.Repeat("the needle\n", 40000))
	out, err := call(t, tools["search_files"], `{"pattern":"needle"}`)
	if err != nil || !strings.HasPrefix(out, "1 matches") || !strings.Contains(out, "big.txt:40001: the needle") {
		t.Fatalf("%v\n%.300s", err, out)
	}
}
