package childside

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// Tests that close survivors of mutation testing (scripts/mutate.sh).

// A parent block without a cost share (0) leaves the operator's cost cap;
// a share equal to the operator's limit is that limit.
func TestLimitsZeroShareKeepsOperatorCap(t *testing.T) {
	op := budget.Limits{MaxCostUSD: 1.5, MaxToolCalls: 7}
	l, err := Limits(op, &wire.Budget{})
	if err != nil || l.MaxCostUSD != 1.5 || l.MaxToolCalls != 7 {
		t.Fatalf("Limits(op, empty block) = %+v, %v; want the operator's limits", l, err)
	}
	l, err = Limits(op, &wire.Budget{MaxCostUSD: 0.25, MaxToolCalls: 3})
	if err != nil || l.MaxCostUSD != 0.25 || l.MaxToolCalls != 3 {
		t.Fatalf("Limits(op, lower shares) = %+v, %v; want the shares", l, err)
	}
	l, err = Limits(budget.Limits{}, &wire.Budget{MaxCostUSD: 0.25, MaxToolCalls: 3})
	if err != nil || l.MaxCostUSD != 0.25 || l.MaxToolCalls != 3 {
		t.Fatalf("Limits(no operator limits, shares) = %+v, %v; want the shares", l, err)
	}
}

// measure refuses anything but a regular file (a FIFO swapped in after the
// move would otherwise be hashed as an empty artifact) and a file over the
// artifact cap; a file of exactly the cap is measured whole.
func TestMeasureRefusesFIFOAndOversize(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := measure(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("measure(FIFO) = %v, want a refusal", err)
	}
	exact := filepath.Join(dir, "exact")
	for size, ok := range map[int64]bool{artifact.MaxArtifactBytes: true, artifact.MaxArtifactBytes + 1: false} {
		f, err := os.Create(exact)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		n, sum, err := measure(exact)
		if ok && (err != nil || n != size || len(sum) != 64) {
			t.Errorf("measure(%d bytes) = %d, %q, %v; want it measured whole", size, n, sum, err)
		}
		if !ok && err == nil {
			t.Errorf("measure(%d bytes) accepted a file over the %d-byte cap", size, artifact.MaxArtifactBytes)
		}
	}
}

// A file with no known extension is sniffed: text is text/plain.
func TestMediaTypeSniffs(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.zzz")
	if err := os.WriteFile(p, []byte("plain words\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := mediaType("notes.zzz", p); !strings.HasPrefix(got, "text/plain") {
		t.Errorf("mediaType(text) = %q, want text/plain", got)
	}
	if got := mediaType("gone.zzz", filepath.Join(dir, "gone")); got != "application/octet-stream" {
		t.Errorf("mediaType(missing) = %q", got)
	}
}

// Budget lines appear only for limits that are set.
func TestConstraintsBlockOmitsUnsetBudgets(t *testing.T) {
	b := ConstraintsBlock(Constraints{TimeoutSeconds: 60, SoftSeconds: 50, MaxIterations: 5, Depth: 1, MaxDepth: 1})
	if strings.Contains(b, "budget") {
		t.Errorf("no budgets set, but the block names one:\n%s", b)
	}
	b = ConstraintsBlock(Constraints{MaxRuntime: 1, MaxToolCalls: 1, MaxInputTokens: 1, MaxOutputTok: 1, MaxCostUSD: 0.5})
	for _, want := range []string{"Runtime budget: 1 seconds", "Tool-call budget: 1 calls", "Input-token budget: 1 tokens", "Output-token budget: 1 tokens", "Cost budget: $0.5000"} {
		if !strings.Contains(b, want) {
			t.Errorf("block lacks %q:\n%s", want, b)
		}
	}
}

// The artifact note needs both a task id and an artifact root.
func TestUserMessageArtifactNote(t *testing.T) {
	note := artifactNote("task-00000000000000aa")
	for _, tc := range []struct {
		task wire.Task
		want bool
	}{
		{wire.Task{Goal: "g", TaskID: "task-00000000000000aa", ArtifactRoot: "/r"}, true},
		{wire.Task{Goal: "g", TaskID: "task-00000000000000aa"}, false},
		{wire.Task{Goal: "g", ArtifactRoot: "/r"}, false},
	} {
		if got := strings.Contains(UserMessage(&tc.task, true, "n"), note); got != tc.want {
			t.Errorf("task %+v: note present = %v, want %v", tc.task, got, tc.want)
		}
	}
}

// A child that stages more than MaxRefs files gets MaxRefs artifacts and a
// problem naming each one discarded.
func TestCollectArtifactsCapsTheCount(t *testing.T) {
	ws, root := t.TempDir(), t.TempDir()
	const id = "task-00000000000000ab"
	files := map[string]string{}
	for i := range artifact.MaxRefs + 2 {
		files[fmt.Sprintf("f%03d.txt", i)] = "x"
	}
	stageFiles(t, ws, id, files)
	c := CollectArtifacts(ws, id, root)
	if len(c.Refs) != artifact.MaxRefs {
		t.Fatalf("%d refs, want %d", len(c.Refs), artifact.MaxRefs)
	}
	want := fmt.Sprintf("more than %d artifacts; discarded", artifact.MaxRefs)
	n := 0
	for _, p := range c.Problems {
		if strings.Contains(p, want) {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d problems say %q, want 2: %q", n, want, c.Problems)
	}
}

// A symlink in place of .odek-artifacts that points at a directory inside
// the workspace: collection refuses it, and the cleanup removes only the
// link, never the files of the directory it names.
func TestCollectArtifactsLeavesSymlinkedStageTarget(t *testing.T) {
	ws := t.TempDir()
	id := "task-00000000000000ab"
	keep := filepath.Join(ws, "sub", id, "keep.txt")
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(ws, StageDir)); err != nil {
		t.Fatal(err)
	}
	c := CollectArtifacts(ws, id, t.TempDir())
	if len(c.Refs) != 0 || len(c.Problems) != 1 || !strings.Contains(c.Problems[0], "is not a directory") {
		t.Fatalf("collected %+v, want one refusal and no refs", c)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Fatalf("the symlink's target lost its file: %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(ws, StageDir)); !os.IsNotExist(err) {
		t.Fatalf("the symlink in place of %s stays: %v", StageDir, err)
	}
}

// A file whose bytes are not the size it reported (here a procfs file,
// which reports 0) is refused: the size and hash of a ref must describe
// what was read.
func TestMeasureRefusesASizeThatChanged(t *testing.T) {
	if _, _, err := measure("/proc/self/status"); err == nil || !strings.Contains(err.Error(), "changed while being measured") {
		t.Fatalf("measure(/proc/self/status) = %v, want a refusal", err)
	}
}
