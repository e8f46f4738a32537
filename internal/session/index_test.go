package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/llm"
)

func createAt(t *testing.T, s *Store, clk *clock, at time.Time, task string) *Session {
	t.Helper()
	clk.t = at
	sess, _, err := s.Create(New{Task: task, Messages: []llm.Message{user(task)}})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

func ids(list []Summary) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.ID)
	}
	return out
}

func TestListNewestFirstAndHeals(t *testing.T) {
	s, clk := newTestStore(t)
	if list, _, err := s.List(); err != nil || len(list) != 0 {
		t.Fatalf("empty store: %v %v", list, err)
	}
	if _, err := s.Newest(); !errors.Is(err, ErrNoSessions) {
		t.Errorf("Newest on an empty store: %v", err)
	}
	t0 := clk.t
	a := createAt(t, s, clk, t0, "first task\nsecond line")
	b := createAt(t, s, clk, t0.Add(time.Hour), "  \n  second task")
	c := createAt(t, s, clk, t0.Add(2*time.Hour), "third")
	list, warns, err := s.List()
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if got := ids(list); len(got) != 3 || got[0] != c.ID || got[1] != b.ID || got[2] != a.ID {
		t.Errorf("order %v", got)
	}
	if list[2].Title != "first task" || list[1].Title != "second task" || list[0].Turns != 1 {
		t.Errorf("summaries %+v", list)
	}
	// a is continued later: it becomes the newest.
	clk.t = t0.Add(3 * time.Hour)
	a.Update(append(a.Messages, answer("x"), user("again")))
	if _, err := s.Save(a); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Newest(); err != nil || n.ID != a.ID || n.Turns != 2 {
		t.Errorf("newest %v %v", n, err)
	}

	// A fresh index is trusted: the files are not read.
	cp, _ := s.Path(c.ID)
	os.WriteFile(cp, []byte("torn"), 0o600)
	back := t0.Add(-time.Minute)
	os.Chtimes(cp, back, back)
	if list, warns, _ := s.List(); len(list) != 3 || len(warns) != 0 {
		t.Errorf("fresh index not used: %v %q", ids(list), warns)
	}
	if _, err := s.Load(c.ID); err == nil {
		t.Fatal("torn file loaded")
	}
	os.Remove(cp)

	// A lost index, a torn index, a stale entry and a foreign file all heal.
	idx := filepath.Join(s.Dir(), indexName)
	os.Remove(idx)
	if list, _, _ := s.List(); len(list) != 2 || list[0].ID != a.ID {
		t.Errorf("without index: %v", ids(list))
	}
	if _, err := os.Stat(idx); err != nil {
		t.Errorf("index not rebuilt: %v", err)
	}
	os.WriteFile(idx, []byte("[{"), 0o600)
	if list, _, _ := s.List(); len(list) != 2 {
		t.Errorf("torn index: %v", ids(list))
	}
	s.writeIndex([]Summary{{ID: b.ID, UpdatedAt: t0.Add(-time.Hour), Title: "stale"}, {ID: NewID(t0), Title: "gone"}})
	future := time.Now().Add(time.Hour)
	bp, _ := s.Path(b.ID)
	os.Chtimes(bp, future, future)
	list, _, _ = s.List()
	if len(list) != 2 {
		t.Fatalf("stale index: %v", ids(list))
	}
	for _, e := range list {
		if e.Title == "stale" || e.Title == "gone" {
			t.Errorf("stale entry survived: %+v", e)
		}
	}
	os.WriteFile(filepath.Join(s.Dir(), NewID(t0)+".json"), []byte("not json"), 0o600)
	os.WriteFile(filepath.Join(s.Dir(), "notes.txt"), []byte("x"), 0o600)
	if list, warns, _ := s.List(); len(list) != 2 || len(warns) != 1 {
		t.Errorf("foreign files: %v, warnings %q", ids(list), warns)
	}
}

func TestDeleteAndCleanup(t *testing.T) {
	s, clk := newTestStore(t)
	t0 := clk.t
	old := createAt(t, s, clk, t0.Add(-10*24*time.Hour), "old")
	mid := createAt(t, s, clk, t0.Add(-3*24*time.Hour), "mid")
	recent := createAt(t, s, clk, t0, "recent")
	tmp := filepath.Join(s.Dir(), "."+recent.ID+".json.tmp-123")
	os.WriteFile(tmp, []byte("{"), 0o600)
	past := t0.Add(-2 * time.Hour)
	os.Chtimes(tmp, past, past)

	clk.t = t0
	removed, err := s.Cleanup(7 * 24 * time.Hour)
	if err != nil || len(removed) != 1 || removed[0] != old.ID {
		t.Errorf("cleanup 7d: %v %v", removed, err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Error("stale temp file kept")
	}
	if err := s.Delete(mid.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(mid.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if err := s.Delete("../" + recent.ID); err == nil {
		t.Error("delete with a traversal id succeeded")
	}
	list, _, _ := s.List()
	if got := ids(list); len(got) != 1 || got[0] != recent.ID {
		t.Errorf("left: %v", got)
	}
	for _, e := range s.readIndex() {
		if e.ID != recent.ID {
			t.Errorf("index still lists %s", e.ID)
		}
	}
}

// NewestIn picks the newest session of one directory, and says when there
// is none there; a session without a directory belongs to none.
func TestNewestIn(t *testing.T) {
	s, c := newTestStore(t)
	if _, err := s.NewestIn("/a"); !errors.Is(err, ErrNoSessions) {
		t.Errorf("NewestIn on an empty store: %v", err)
	}
	mk := func(dir, task string) *Session {
		t.Helper()
		c.t = c.t.Add(time.Second)
		sess, _, err := s.Create(New{Model: "m", Task: task, Messages: []llm.Message{user(task)}, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return sess
	}
	a1 := mk("/a", "first in a")
	a2 := mk("/a", "second in a")
	mk("/b", "in b")
	mk("", "from before directories")
	if got, err := s.NewestIn("/a"); err != nil || got.ID != a2.ID || got.Dir != "/a" {
		t.Errorf("NewestIn(/a) = %v, %v; want %s", got, err, a2.ID)
	}
	c.t = c.t.Add(time.Second)
	if _, err := s.Save(a1); err != nil {
		t.Fatal(err)
	}
	if got, err := s.NewestIn("/a"); err != nil || got.ID != a1.ID {
		t.Errorf("after a1 was saved, NewestIn(/a) = %v, %v", got, err)
	}
	var none *NoSessionInDirError
	if _, err := s.NewestIn("/c"); !errors.As(err, &none) || none.Elsewhere != 4 || !strings.Contains(err.Error(), "no session ran in /c (4 in other directories") {
		t.Errorf("NewestIn(/c): %v", err)
	}
	list, _, _ := s.List()
	dirs := map[string]int{}
	for _, sum := range list {
		dirs[sum.Dir]++
	}
	if dirs["/a"] != 2 || dirs["/b"] != 1 || dirs[""] != 1 {
		t.Errorf("list directories = %v", dirs)
	}
}
