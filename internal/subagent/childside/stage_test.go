package childside

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/artifact"
)

func stageFiles(t *testing.T, ws, taskID string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(ws, StageDir, taskID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestCollectArtifactsIgnoresBadTaskID(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, StageDir, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if c := CollectArtifacts(ws, "../x", t.TempDir()); len(c.Refs)+len(c.Problems) != 0 {
		t.Fatalf("%+v", c)
	}
}

func TestCollectArtifacts(t *testing.T) {
	ws, root := t.TempDir(), t.TempDir()
	const id = "task-00000000000000aa"
	stageFiles(t, ws, id, map[string]string{"report.md": "# Report\n", "report.txt": "dup stem", "data.bin": "\x00\x01", "bad name!": "x"})
	stage := filepath.Join(ws, StageDir, id)
	os.MkdirAll(filepath.Join(stage, "nested"), 0o755)
	os.WriteFile(filepath.Join(stage, "nested", "deep.txt"), []byte("deep"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(stage, "link.txt"))

	c := CollectArtifacts(ws, id, root)
	var got []string
	for _, r := range c.Refs {
		got = append(got, r.ID+"|"+r.MediaType+"|"+r.URI)
		if r.Schema != artifact.SchemaArtifactRef || r.SizeBytes == nil {
			t.Fatalf("ref %+v", r)
		}
	}
	want := []string{
		"data|application/octet-stream|file://" + root + "/data.bin",
		"report|text/markdown|file://" + root + "/report.md",
		"report.txt|text/plain|file://" + root + "/report.txt",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("refs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c.Refs[1].SHA256 != sum("# Report\n") || *c.Refs[1].SizeBytes != 9 {
		t.Fatalf("measure: %+v", c.Refs[1])
	}
	problems := strings.Join(c.Problems, "\n")
	for _, p := range []string{`[artifact] "bad name!" is not a valid artifact name`, `[artifact] "link.txt" is a symlink; discarded`, `[artifact] "nested" is a directory; nested files are discarded`} {
		if !strings.Contains(problems, p) {
			t.Errorf("problems lack %q:\n%s", p, problems)
		}
	}
	if _, err := os.Lstat(filepath.Join(ws, StageDir)); !os.IsNotExist(err) {
		t.Fatalf("staging directory left behind: %v", err)
	}
	if info, _ := os.Stat(filepath.Join(root, "report.md")); info.Mode().Perm() != 0o600 {
		t.Fatalf("artifact mode %v", info.Mode())
	}
	// Every ref validates against the root it was moved into.
	for _, r := range c.Refs {
		if _, err := artifact.Validate(r, []string{root}); err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
	}
}

func TestCollectArtifactsNothingStaged(t *testing.T) {
	if c := CollectArtifacts(t.TempDir(), "task-00000000000000aa", t.TempDir()); len(c.Refs)+len(c.Problems) != 0 {
		t.Fatalf("%+v", c)
	}
}
