package approval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An ephemeral Gate (odek acp) honours the stored grants, keeps what its
// Confirmer grants for its own life — a restart's Recheck passes, a second
// question is not asked — and writes nothing to the approvals files.
func TestEphemeralGate(t *testing.T) {
	home := t.TempDir()
	stored, err := New(Options{Home: home, Confirmer: NewPrompter(strings.NewReader("y\n"), &promptLog{})})
	if err != nil {
		t.Fatal(err)
	}
	old := projectSpec()
	old.Name = "old"
	if ok, _, err := stored.Spawn(context.Background(), old); !ok || err != nil {
		t.Fatalf("stored grant: %v, %v", ok, err)
	}
	before, err := os.ReadFile(filepath.Join(home, SpawnFile))
	if err != nil {
		t.Fatal(err)
	}
	asked := &promptLog{}
	g, err := New(Options{Home: home, Ephemeral: true, Confirmer: NewPrompter(strings.NewReader("y\n"), asked)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if ok, _, err := g.Spawn(ctx, old); !ok || err != nil || asked.Len() != 0 {
		t.Fatalf("a stored grant: %v, %v, asked %q", ok, err, asked.String())
	}
	for i := range 2 { // the second is answered by the first's grant: the prompter has one line only
		if ok, _, err := g.Spawn(ctx, projectSpec()); !ok || err != nil {
			t.Fatalf("spawn %d: %v, %v", i, ok, err)
		}
	}
	if err := g.Recheck(ctx, projectSpec()); err != nil {
		t.Errorf("recheck after an ephemeral grant: %v", err)
	}
	after, err := os.ReadFile(filepath.Join(home, SpawnFile))
	if err != nil || string(after) != string(before) {
		t.Errorf("the approvals file changed:\n%s\nwas\n%s", after, before)
	}
	fresh, err := New(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.Recheck(ctx, projectSpec()); err == nil {
		t.Error("an ephemeral grant outlived its Gate")
	}
}
