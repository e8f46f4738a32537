package session

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// TestOpenCreatesThenResumes: --session-id's create-or-resume. The first
// run creates the session under the chosen id, a retried step resumes it,
// and a bad id is refused before any path is made.
func TestOpenCreatesThenResumes(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, resumed, _, err := s.Open("ci-pr-42-lint", New{Model: "m", Task: "lint", Messages: []llm.Message{system("sys"), user("lint")}})
	if err != nil || resumed || sess.ID != "ci-pr-42-lint" {
		t.Fatalf("first Open: %v resumed=%v id=%v", err, resumed, sess)
	}
	sess.Update(append(sess.raw, answer("half done")))
	if _, err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	again, resumed, _, err := s.Open("ci-pr-42-lint", New{Model: "other", Task: "ignored"})
	if err != nil || !resumed || again.Model != "m" || again.Task != "lint" || len(again.Messages) != 3 || again.Unverified() {
		t.Fatalf("second Open: %v resumed=%v %+v", err, resumed, again)
	}
	for _, bad := range []string{"../x", "", "index", "a b"} {
		var ie *InvalidIDError
		if _, _, _, err := s.Open(bad, New{}); !errors.As(err, &ie) || ie.ErrorClass() != "setup_error" {
			t.Errorf("Open(%q) = %v, want an *InvalidIDError (setup_error)", bad, err)
		}
	}
	if ents, _ := os.ReadDir(s.Dir()); len(ents) != 2 { // the session and the index
		t.Errorf("sessions dir holds %d entries", len(ents))
	}
}

// TestOpenRace: two runs that create one id at once get one session.
func TestOpenRace(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	var wg sync.WaitGroup
	tokens := make([]string, 8)
	for i := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sess, _, _, err := s.Open("same", New{Model: "m", Messages: []llm.Message{user("t")}})
			if err != nil {
				t.Error(err)
				return
			}
			tokens[i] = sess.AuthToken
		}()
	}
	wg.Wait()
	for _, tok := range tokens[1:] {
		if tok != tokens[0] {
			t.Fatalf("two sessions were made under one id: %q", tokens)
		}
	}
}

// TestCreateNeverReplaces: a chosen id that is taken is an *ExistsError.
func TestCreateNeverReplaces(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	if _, _, err := s.Create(New{ID: "job", Task: "first"}); err != nil {
		t.Fatal(err)
	}
	var ex *ExistsError
	if _, _, err := s.Create(New{ID: "job", Task: "second"}); !errors.As(err, &ex) {
		t.Fatalf("Create over a taken id: %v", err)
	}
	if got, err := s.Load("job"); err != nil || got.Task != "first" {
		t.Errorf("the first session was replaced: %+v, %v", got, err)
	}
}

// TestFork: the copy has its own id, names its parent, is signed afresh
// (it loads verified; an edit of its parent field is tampering), keeps the
// conversation and taint, and leaves the parent as it was.
func TestFork(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	parent, _, err := s.Create(New{ID: "base", Model: "m", Task: "task SECRET-VALUE", Dir: "/w",
		Messages: conversation(2, "body SECRET-VALUE")})
	if err != nil {
		t.Fatal(err)
	}
	parent.Tainted = true
	if _, err := s.Save(parent); err != nil {
		t.Fatal(err)
	}
	ppath, _ := s.Path("base")
	before, _ := os.ReadFile(ppath)

	f, _, err := s.Fork("base", "base-try2")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("base-try2")
	if err != nil || got.Unverified() {
		t.Fatalf("the fork does not load verified: %v", err)
	}
	if got.Parent != "base" || got.ID != "base-try2" || got.AuthToken == parent.AuthToken || !got.Tainted ||
		got.Model != "m" || got.Dir != "/w" || got.Turns != parent.Turns || len(got.Messages) != len(parent.Messages) ||
		f.MAC == "" || f.MAC == parent.MAC {
		t.Errorf("fork = %+v", got)
	}
	for _, m := range got.Messages {
		if strings.Contains(m.Content, "SECRET-VALUE") {
			t.Errorf("the fork holds an unredacted secret")
		}
	}
	if after, _ := os.ReadFile(ppath); string(after) != string(before) {
		t.Errorf("forking changed the parent's file")
	}
	fpath, _ := s.Path("base-try2")
	data, _ := os.ReadFile(fpath)
	if err := os.WriteFile(fpath, []byte(strings.Replace(string(data), `"parent":"base"`, `"parent":"other"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("base-try2"); !errors.As(err, new(*TamperedError)) {
		t.Errorf("an edited parent field loads: %v", err)
	}
	// A fresh id when none is given; never over a taken one; never from a
	// tampered session.
	fresh, _, err := s.Fork("base", "")
	if err != nil || ValidID(fresh.ID) != nil || fresh.ID == "base" {
		t.Errorf("fork without an id: %v %v", fresh, err)
	}
	if _, _, err := s.Fork("base", "base"); !errors.As(err, new(*ExistsError)) {
		t.Errorf("fork over a taken id: %v", err)
	}
	if _, _, err := s.Fork("base-try2", "x"); !errors.As(err, new(*TamperedError)) {
		t.Errorf("fork of a tampered session: %v", err)
	}
	if _, _, err := s.Fork("nope", "y"); !errors.Is(err, ErrNotFound) {
		t.Errorf("fork of a missing session: %v", err)
	}
	list, _, _ := s.List()
	parents := map[string]string{}
	for _, sum := range list {
		parents[sum.ID] = sum.Parent
	}
	if parents[fresh.ID] != "base" || parents["base"] != "" {
		t.Errorf("list parents: %v", parents)
	}
}

// TestForkOfUnsigned: a copy of a session without a MAC is tainted, and
// signed.
func TestForkOfUnsigned(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	if _, _, err := s.Create(New{ID: "old", Messages: []llm.Message{user("t")}}); err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path("old")
	data, _ := os.ReadFile(path)
	unsigned := `{` + string(data)[len(`{"mac":"`)+64+2:]
	if err := os.WriteFile(path, []byte(unsigned), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _, err := s.Fork("old", "new")
	if err != nil || !f.Tainted {
		t.Fatalf("fork of an unsigned session: %v tainted=%v", err, f != nil && f.Tainted)
	}
	if got, err := s.Load("new"); err != nil || got.Unverified() || !got.Tainted {
		t.Errorf("the fork: %v unverified=%v tainted=%v", err, got.Unverified(), got.Tainted)
	}
}
