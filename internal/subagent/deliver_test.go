package subagent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/subagent/childside"
)

func stageFiles(t *testing.T, ws, taskID string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(ws, childside.StageDir, taskID)
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

type fakeRegistry map[string]artifact.Verified

func (f fakeRegistry) Register(v artifact.Verified, id string) error { f[id] = v; return nil }

func TestDeliverArtifacts(t *testing.T) {
	ws := t.TempDir()
	base := t.TempDir()
	root1, root2 := filepath.Join(base, "t1"), filepath.Join(base, "t2")
	os.Mkdir(root1, 0o700)
	os.Mkdir(root2, 0o700)
	stageFiles(t, ws, "task-0000000000000001", map[string]string{"notes.txt": "hello\nworld\n", "big.txt": strings.Repeat("b", maxInlineBytes+1)})
	stageFiles(t, ws, "task-0000000000000002", map[string]string{"notes.txt": "second", "img.png": "\x89PNG"})
	c1 := childside.CollectArtifacts(ws, "task-0000000000000001", root1)
	c2 := childside.CollectArtifacts(ws, "task-0000000000000002", root2)
	// A child that points outside its own root, one that lies about a hash.
	escape := c2.Refs[0]
	escape.ID, escape.URI = "escape", "file://"+filepath.Join(root1, "notes.txt")
	liar := c2.Refs[1]
	liar.ID, liar.SHA256 = "liar", strings.Repeat("0", 64)
	reg := fakeRegistry{}
	lines := deliverArtifacts([]taskArtifacts{
		{Index: 1, Root: root1, Refs: c1.Refs},
		{Index: 2, Root: root2, Refs: append(c2.Refs, escape, liar)},
	}, reg)
	want1 := strings.Join([]string{
		"  - big (text/plain, 32769 bytes, sha256:" + sum(strings.Repeat("b", maxInlineBytes+1))[:12] + ", task 1)",
		"  - notes (text/plain, 12 bytes, sha256:" + sum("hello\nworld\n")[:12] + ", task 1)",
		"  --- artifact: notes ---", "    hello\n    world", "  --- end artifact ---",
	}, "\n")
	if got := strings.Join(lines[1], "\n"); got != want1 {
		t.Fatalf("task 1:\n%s\nwant:\n%s", got, want1)
	}
	got2 := strings.Join(lines[2], "\n")
	for _, w := range []string{
		`  [artifact] dropped "escape": resolved path lies outside every configured artifact root`,
		`  [artifact] dropped "liar": sha256 mismatch: ref says 0000`,
		"  - img (image/png, 4 bytes, sha256:",
		"  - notes.t2 (text/plain, 6 bytes, sha256:",
		"  --- artifact: notes.t2 ---\n    second\n  --- end artifact ---",
	} {
		if !strings.Contains(got2, w) {
			t.Errorf("task 2 lacks %q:\n%s", w, got2)
		}
	}
	if strings.Contains(got2, root2) || strings.Contains(got2, root1) {
		t.Fatalf("a path reached the model:\n%s", got2)
	}
	for _, id := range []string{"big", "notes", "notes.t2", "img"} {
		if _, ok := reg[id]; !ok {
			t.Errorf("%s not registered (have %v)", id, reg)
		}
	}
	if _, ok := reg["liar"]; ok {
		t.Error("a dropped artifact was registered")
	}
}

func TestDeliverArtifactsInlineBudget(t *testing.T) {
	ws, root := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files[n+".txt"] = strings.Repeat(n, 30<<10) // 5 × 30 KiB: only 4 fit in 128 KiB
	}
	files["small.txt"] = "s"
	stageFiles(t, ws, "task-0000000000000003", files)
	c := childside.CollectArtifacts(ws, "task-0000000000000003", root)
	lines := strings.Join(deliverArtifacts([]taskArtifacts{{Index: 1, Root: root, Refs: c.Refs}}, nil)[1], "\n")
	if n := strings.Count(lines, "--- artifact: "); n != 5 { // four big ones, then the small one still fits
		t.Fatalf("%d inlined:\n%.500s", n, lines)
	}
	if strings.Contains(lines, "--- artifact: e ---") {
		t.Fatal("the fifth 30 KiB artifact was inlined past the 128 KiB budget")
	}
}

func TestDeliverArtifactsTamperedAfterValidation(t *testing.T) {
	ws, root := t.TempDir(), t.TempDir()
	stageFiles(t, ws, "task-0000000000000004", map[string]string{"r.txt": "original"})
	c := childside.CollectArtifacts(ws, "task-0000000000000004", root)
	v, err := artifact.Validate(c.Refs[0], []string{root})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(v.Path, []byte("tampered"), 0o600) // same size, other bytes
	d := []*delivered{{task: 1, id: "r", v: v}}
	inline(d)
	if d[0].v != nil {
		t.Fatal("re-hash on read did not notice the change")
	}
}

func TestDeliverArtifactsReplacedAfterValidation(t *testing.T) {
	ws, root := t.TempDir(), t.TempDir()
	stageFiles(t, ws, "task-0000000000000005", map[string]string{"r.txt": "original"})
	c := childside.CollectArtifacts(ws, "task-0000000000000005", root)
	v, err := artifact.Validate(c.Refs[0], []string{root})
	if err != nil {
		t.Fatal(err)
	}
	// Same bytes, another file: the identity check refuses it before any read.
	tmp := filepath.Join(root, "x")
	os.WriteFile(tmp, []byte("original"), 0o600)
	if err := os.Rename(tmp, v.Path); err != nil {
		t.Fatal(err)
	}
	d := []*delivered{{task: 1, id: "r", v: v}}
	inline(d)
	if d[0].v != nil {
		t.Fatal("a replaced file was inlined")
	}
}

// TestDeliverArtifactsAtTheBounds: a text artifact of exactly
// maxInlineBytes is inlined whole, four of exactly a quarter of
// maxInlineTotal all fit the budget, and a result of MaxRefs+1 refs drops
// exactly the one past MaxRefs.
func TestDeliverArtifactsAtTheBounds(t *testing.T) {
	ws, root := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		files[n+".txt"] = strings.Repeat(n, maxInlineTotal/4) // each exactly maxInlineBytes
	}
	stageFiles(t, ws, "task-0000000000000004", files)
	c := childside.CollectArtifacts(ws, "task-0000000000000004", root)
	lines := strings.Join(deliverArtifacts([]taskArtifacts{{Index: 1, Root: root, Refs: c.Refs}}, nil)[1], "\n")
	if maxInlineTotal/4 != maxInlineBytes {
		t.Fatalf("the test assumes maxInlineTotal = 4 × maxInlineBytes")
	}
	if n := strings.Count(lines, "--- artifact: "); n != 4 {
		t.Fatalf("%d of 4 artifacts of exactly %d bytes inlined, want all (their sum is exactly the budget):\n%.300s", n, maxInlineBytes, lines)
	}
	if strings.Contains(lines, "dropped") {
		t.Fatalf("an artifact of exactly the inline size was dropped:\n%.300s", lines)
	}

	refs := make([]artifact.Ref, artifact.MaxRefs+1)
	for i := range refs {
		refs[i] = c.Refs[0]
		refs[i].ID = "r" + strings.Repeat("x", i)
	}
	out := deliverArtifacts([]taskArtifacts{{Index: 1, Root: root, Refs: refs}}, nil)[1]
	over := 0
	for _, l := range out {
		if strings.Contains(l, fmt.Sprintf("more than %d artifacts", artifact.MaxRefs)) {
			over++
		}
	}
	if over != 1 {
		t.Errorf("%d refs dropped as more than %d in one result, want 1 (the last of %d)", over, artifact.MaxRefs, len(refs))
	}
}
