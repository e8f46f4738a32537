package builtin

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests pin how read_file and patch tell text from binary, cut long
// lines, count lines and word their errors (gremlins survivors of read.go,
// write.go and errors.go).

// A NUL anywhere in the first bytes, or bytes that are not UTF-8, make a
// binary file; a rune cut short at the end does not, whether or not text
// precedes it; a stray continuation byte at the end does.
func TestTextOrBinary(t *testing.T) {
	tools, root, _ := setup(t)
	for content, binary := range map[string]bool{
		"\x00abc":         true,  // NUL first
		"ab\x00c":         true,  // NUL inside
		"hello\xffabc":    true,  // an invalid byte four from the end
		"hello\xffabcd":   true,  // … and five from it
		"abc\x82":         true,  // a continuation byte with no start
		"abc\xe2\x82":     false, // "€" cut short by the end
		"\xe2\x82":        false, // the same, alone
		"\xf0\x9f\x98":    false, // a 4-byte rune cut at 3
		"abc\xe2\x82\xac": false,
		"plain text\n":    false,
	} {
		write(t, root, "f", content)
		out, err := call(t, tools["read_file"], `{"path":"f"}`)
		if err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if got := strings.Contains(out, "binary file"); got != binary {
			t.Errorf("read_file %q: binary %v, want %v:\n%s", content, got, binary, out)
		}
		_, err = call(t, tools["patch"], `{"path":"f","old":"abc","new":"xyz"}`)
		if got := err != nil && strings.Contains(err.Error(), "binary file"); got != binary {
			t.Errorf("patch %q: %v, want binary %v", content, err, binary)
		}
	}
}

// A line of exactly MaxLineBytes is shown whole; one byte more is cut at
// MaxLineBytes with a marker.
func TestReadFileLineCutAtCap(t *testing.T) {
	tools, root, _ := setup(t)
	exact, over := strings.Repeat("a", MaxLineBytes), strings.Repeat("b", MaxLineBytes)+"c"
	write(t, root, "f", exact+"\n"+over+"\n")
	out, err := call(t, tools["read_file"], `{"path":"f"}`)
	if err != nil {
		t.Fatal(err)
	}
	cut := fmt.Sprintf(" … [line cut at %d bytes]", MaxLineBytes)
	if !strings.Contains(out, "     1\t"+exact+"\n") || !strings.Contains(out, "     2\t"+over[:MaxLineBytes]+cut+"\n") || strings.Count(out, cut) != 1 {
		t.Fatalf("%s", out)
	}
}

// write_file counts a last line without a newline.
func TestWriteFileLineCount(t *testing.T) {
	tools, _, _ := setup(t)
	for content, want := range map[string]string{"a\nb": "(3 bytes, 2 lines)", "a\nb\n": "(4 bytes, 2 lines)", "x": "(1 bytes, 1 lines)", "": "(0 bytes, 0 lines)"} {
		c, _ := json.Marshal(content)
		out, err := call(t, tools["write_file"], `{"path":"f","content":`+string(c)+`}`)
		if err != nil || !strings.HasSuffix(out, " f "+want) {
			t.Errorf("%q: %v %q, want %q", content, err, out, want)
		}
	}
}

// patch edits a file of exactly MaxWriteBytes that stays that size.
func TestPatchFileExactlyAtCap(t *testing.T) {
	t.Parallel()
	tools, root, _ := setup(t)
	p := filepath.Join(root, "f.txt")
	if err := os.WriteFile(p, []byte("X"+strings.Repeat("a", MaxWriteBytes-1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, tools["patch"], `{"path":"f.txt","old":"X","new":"Y"}`); err != nil {
		t.Fatalf("a %d-byte file: %v", MaxWriteBytes, err)
	}
	if b, _ := os.ReadFile(p); len(b) != MaxWriteBytes || b[0] != 'Y' {
		t.Fatalf("the file is now %d bytes starting %q", len(b), b[:1])
	}
}

// A missing old text gets a hint only when its first line occurs in the
// file; an empty first line is no hint.
func TestPatchFirstLineHint(t *testing.T) {
	tools, root, _ := setup(t)
	write(t, root, "f", "package x\n\nfunc A() {}\n")
	hint := "its first line"
	for old, want := range map[string]bool{
		"package x\nfunc Z() {}": true,
		"package y\nfunc A() {}": false,
		"\nfunc Z() {}":          false,
	} {
		o, _ := json.Marshal(old)
		_, err := call(t, tools["patch"], `{"path":"f","old":`+string(o)+`,"new":"q"}`)
		if err == nil || !strings.Contains(err.Error(), "old text not found (0 matches)") {
			t.Fatalf("%q: %v", old, err)
		}
		if got := strings.Contains(err.Error(), hint); got != want {
			t.Errorf("%q: %v; want the first-line hint %v", old, err, want)
		}
		if want && !strings.Contains(err.Error(), `its first line "package x" occurs`) {
			t.Errorf("%q: %v", old, err)
		}
	}
}

// A cap's error names the value and the limit, and a suggestion only when
// there is one.
func TestTooLargeErrorText(t *testing.T) {
	tools, _, _ := setup(t)
	_, err := tools["search_files"].AssessRisk(json.RawMessage(`{"pattern":"` + strings.Repeat("a", maxPatternBytes+1) + `"}`))
	want := fmt.Sprintf("pattern is %d bytes, over the %d-byte limit", maxPatternBytes+1, maxPatternBytes)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	tl.Suggestion = "write it in parts"
	if got := tl.Error(); got != want+"; write it in parts" {
		t.Fatalf("with a suggestion: %q", got)
	}
}
