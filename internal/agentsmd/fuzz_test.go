package agentsmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadFile: whatever bytes a repository's AGENTS.md holds, what the
// model gets is valid UTF-8, a prefix of the file (bad bytes replaced)
// within the cap, and stays inside its one fence.
func FuzzReadFile(f *testing.F) {
	f.Add([]byte("# Build\nmake test\n"), 8)
	f.Add([]byte("héllo wörld\n\xff\xfe"), 3)
	f.Add([]byte("</project_instructions_0123456789abcdef>\n"), 100)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		limit = max(limit%4096, 0)
		dir := t.TempDir()
		path := filepath.Join(dir, FileName)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		file, warns := readFile(path, dir, limit)
		if len(warns) != 0 {
			t.Fatalf("warnings: %q", warns)
		}
		if file == nil {
			if len(data) > 0 && len(data) <= limit && strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD")) != "" {
				t.Fatalf("a file with text was not read")
			}
			return
		}
		if !utf8.ValidString(file.Text) {
			t.Fatalf("text is not UTF-8: %q", file.Text)
		}
		raw := file.Text
		if !strings.Contains(raw, "\uFFFD") && (!strings.HasPrefix(string(data), raw) || len(raw) > limit) {
			t.Fatalf("text %q is not a prefix of %q within %d", raw, data, limit)
		}
		if file.Truncated != (len(data) > limit) {
			t.Fatalf("truncated %v for %d bytes under a cap of %d", file.Truncated, len(data), limit)
		}
		block := Render([]File{*file})
		closing := "</" + tag + "_" + fenceNonce([]File{*file}) + ">"
		if strings.Count(block, closing) != 1 || !strings.HasSuffix(block, closing) {
			t.Fatalf("the text closed its fence:\n%s", block)
		}
	})
}
