package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/msgkind"
)

func TestCreateLoadRoundTrip(t *testing.T) {
	s, clk := newTestStore(t)
	ro := true
	sess, warns, err := s.Create(New{
		Model: "m", Provider: "http://x/v1", Task: "fix SECRET-VALUE now",
		Messages: []llm.Message{system("sys"), user("fix SECRET-VALUE now")},
		Refs:     []ExternalRef{{Kind: "ci-run", URI: "https://ci/1", CreatedBy: "cli", ReadOnly: &ro}},
	})
	if err != nil || warns != nil {
		t.Fatal(err, warns)
	}
	path, _ := s.Path(sess.ID)
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stat %v mode %v", err, st.Mode())
	}
	if _, err := s.Save(sess); err != nil { // a save after the create writes the file anew
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("after a save: stat %v mode %v", err, st.Mode())
	}
	if dst, _ := os.Stat(s.Dir()); dst.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", dst.Mode().Perm())
	}
	got, err := s.Load(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Task != "fix [REDACTED] now" || got.Messages[1].Content != "fix [REDACTED] now" {
		t.Errorf("not redacted: task %q message %q", got.Task, got.Messages[1].Content)
	}
	if got.Turns != 1 || got.Model != "m" || got.Provider != "http://x/v1" || got.RedactBoundary != 2 || len(got.AuthToken) != 32 {
		t.Errorf("fields: %+v", got)
	}
	if len(got.ExternalRefs) != 1 || !got.ExternalRefs[0].CreatedAt.Equal(clk.t) || !*got.ExternalRefs[0].ReadOnly {
		t.Errorf("refs: %+v", got.ExternalRefs)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "SECRET-VALUE") || strings.Contains(string(data), "\n") {
		t.Errorf("file is not compact and redacted: %s", data)
	}
}

func TestUpdateRedactsOnlyWhatChanged(t *testing.T) {
	calls := map[string]int{}
	s, _ := newTestStore(t)
	s.redact = func(v string) string { calls[v]++; return testRedact(v) }
	hist := []llm.Message{system("sys"), user("task SECRET-VALUE")}
	sess, _, err := s.Create(New{Model: "m", Messages: hist})
	if err != nil {
		t.Fatal(err)
	}
	hist = append(hist, toolGroup("a", 1, "out SECRET-VALUE")...)
	sess.Update(hist)
	if _, err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	if calls["task SECRET-VALUE"] != 1 || calls["out SECRET-VALUE"] != 1 {
		t.Errorf("redaction calls: %v (want each message once)", calls)
	}
	// A message changed in place (the plan message is upserted) is redacted again.
	hist = append([]llm.Message(nil), hist...)
	hist[0] = system("sys v2 SECRET-VALUE")
	sess.Update(hist)
	if _, err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Load(sess.ID)
	for i, m := range got.Messages {
		if strings.Contains(m.Content, "SECRET") {
			t.Errorf("message %d not redacted: %q", i, m.Content)
		}
	}
	if got.Messages[0].Content != "sys v2 [REDACTED]" {
		t.Errorf("changed message: %q", got.Messages[0].Content)
	}
}

func TestSaveRedactsToolArgumentsWithoutTouchingTheCaller(t *testing.T) {
	s, _ := newTestStore(t)
	g := toolGroup("a", 1, "ok")
	g[0].ToolCalls[0].Function.Arguments = `{"token":"SECRET-VALUE"}`
	hist := append([]llm.Message{user("t")}, g...)
	sess, _, err := s.Create(New{Messages: hist})
	if err != nil {
		t.Fatal(err)
	}
	if hist[1].ToolCalls[0].Function.Arguments != `{"token":"SECRET-VALUE"}` {
		t.Error("the caller's history was modified")
	}
	got, _ := s.Load(sess.ID)
	if a := got.Messages[1].ToolCalls[0].Function.Arguments; a != `{"token":"[REDACTED]"}` {
		t.Errorf("arguments %q", a)
	}
}

func TestLoadRefusesBadFiles(t *testing.T) {
	s, _ := newTestStore(t)
	sess, _, err := s.Create(New{Messages: []llm.Message{user("t")}})
	if err != nil {
		t.Fatal(err)
	}
	other := NewID(time.Now())
	path, _ := s.Path(sess.ID)
	otherPath, _ := s.Path(other)
	if err := os.Rename(path, otherPath); err != nil {
		t.Fatal(err)
	}
	var mm *IDMismatchError
	if _, err := s.Load(other); !errors.As(err, &mm) || mm.Embedded != sess.ID {
		t.Errorf("renamed file: %v", err)
	}
	if _, err := s.Load(sess.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := s.Load("../../etc/passwd"); err == nil || !strings.Contains(err.Error(), "invalid session id") {
		t.Errorf("traversal: %v", err)
	}
	big := NewStore(Options{Dir: s.Dir(), MaxBytes: 10})
	var tl *TooLargeError
	if _, err := big.Load(other); !errors.As(err, &tl) || tl.Limit != 10 {
		t.Errorf("over the cap: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"id":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(sess.ID); err == nil || !strings.Contains(err.Error(), "not valid session JSON") {
		t.Errorf("torn file: %v", err)
	}
	dirID := NewID(time.Now())
	if err := os.Mkdir(filepath.Join(s.Dir(), dirID+".json"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(dirID); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
}

func TestSaveOverTheCapDropsOldestGroups(t *testing.T) {
	s, _ := newTestStore(t)
	s.maxBytes = 6000
	body := strings.Repeat("x", 400)
	hist := conversation(10, body) // ~8.5 KB
	sess, warns, err := s.Create(New{Model: "m", Messages: hist})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "oldest message group(s) are no longer saved") {
		t.Errorf("warnings %q", warns)
	}
	path, _ := s.Path(sess.ID)
	st, _ := os.Stat(path)
	if st.Size() > 6000 {
		t.Errorf("file is %d bytes, over the cap", st.Size())
	}
	got, err := s.Load(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkPaired(t, got.Messages)
	if !Trimmed(got.Messages) || Trimmed(hist) {
		t.Errorf("Trimmed: loaded %v, original %v", Trimmed(got.Messages), Trimmed(hist))
	}
	if got.Messages[0].Content != "You are odek." || !strings.HasPrefix(got.Messages[1].Content, "[Session storage limit: ") {
		t.Errorf("head: %q, %q", got.Messages[0].Content, got.Messages[1].Content)
	}
	if last := got.Messages[len(got.Messages)-1]; last.Content != "done" {
		t.Errorf("newest message lost: %+v", last)
	}
	if sess.StoredCount() != len(got.Messages) || len(sess.Messages) != len(hist) {
		t.Errorf("stored %d, loaded %d, in memory %d", sess.StoredCount(), len(got.Messages), len(sess.Messages))
	}
	// The warning is given once; a continued session carries the count over.
	if warns, _ := s.Save(sess); len(warns) != 0 {
		t.Errorf("second warning %q", warns)
	}
	n := got.Messages[1].Count
	got.Update(append(append([]llm.Message(nil), got.Messages...), toolGroup("more", 2, body)...))
	if _, err := s.Save(got); err != nil {
		t.Fatal(err)
	}
	again, _ := s.Load(sess.ID)
	if m := again.Messages[1]; m.Kind != msgkind.StorageLimit || m.Count <= n {
		t.Errorf("marker %+v after count %d", m, n)
	}
	if strings.Count(mustJSON(t, again.Messages), "[Session storage limit") != 1 {
		t.Error("more than one storage marker")
	}
}

func TestSaveFailsWhenNothingCanBeDropped(t *testing.T) {
	s, _ := newTestStore(t)
	s.maxBytes = 300
	if _, _, err := s.Create(New{Messages: []llm.Message{system(strings.Repeat("s", 400))}}); err == nil ||
		!strings.Contains(err.Error(), "does not fit") {
		t.Errorf("err = %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTrim(t *testing.T) {
	plan := system("[Current plan: v1 — 0/1 done. Structured state, not instructions.]")
	plan.Kind = msgkind.Plan
	base := append([]llm.Message{system("sys"), user("task"), plan}, toolGroup("a", 2, "r")...)
	base = append(base, answer("first"), user("next"))
	base = append(base, toolGroup("b", 1, "r")...)
	base = append(base, answer("second"))
	for _, tc := range []struct {
		keep    int
		removed int
		tail    []string // contents after the marker
	}{
		{keep: 100, removed: 0},
		{keep: 3, removed: 5, tail: []string{"", "r", "second"}},
		{keep: 4, removed: 4, tail: []string{"next", "", "r", "second"}},
		{keep: 2, removed: 7, tail: []string{"second"}},
		{keep: 0, removed: 8},
	} {
		sess := &Session{Messages: append([]llm.Message(nil), base...)}
		if got := sess.Trim(tc.keep); got != tc.removed {
			t.Errorf("keep %d: removed %d, want %d", tc.keep, got, tc.removed)
			continue
		}
		checkPaired(t, sess.Messages)
		if Trimmed(sess.Messages) != (tc.removed > 0) {
			t.Errorf("keep %d: Trimmed = %v after removing %d", tc.keep, Trimmed(sess.Messages), tc.removed)
		}
		if tc.removed == 0 {
			if len(sess.Messages) != len(base) {
				t.Errorf("keep %d: messages changed", tc.keep)
			}
			continue
		}
		head := []string{"sys", "task", plan.Content, "[Session trimmed: " + strconv.Itoa(tc.removed) + " older message(s) were removed by odek session trim.]"}
		var got []string
		for _, m := range sess.Messages {
			got = append(got, m.Content)
		}
		if diff := cmp.Diff(append(head, tc.tail...), got); diff != "" {
			t.Errorf("keep %d (-want +got):\n%s", tc.keep, diff)
		}
	}
	// Trimming again accumulates the count in the one marker.
	sess := &Session{Messages: append([]llm.Message(nil), base...)}
	sess.Trim(4)
	sess.Trim(1)
	if m := sess.Messages[3]; m.Kind != msgkind.SessionTrimmed || m.Count != 7 || len(sess.Messages) != 5 {
		t.Errorf("after two trims: marker %+v, %d messages", m, len(sess.Messages))
	}
}

// Tool names and call ids are the model's words too: they are redacted in
// the file like content, consistently, so results still pair with calls.
func TestSaveRedactsToolNamesAndCallIDs(t *testing.T) {
	s, _ := newTestStore(t)
	g := toolGroup("a", 1, "ok")
	g[0].ToolCalls[0].ID, g[1].ToolCallID = "call-SECRET-VALUE", "call-SECRET-VALUE"
	g[0].ToolCalls[0].Function.Name, g[1].Name = "SECRET-VALUE", "SECRET-VALUE"
	sess, _, err := s.Create(New{Messages: append([]llm.Message{user("t")}, g...)})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.ID)
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "SECRET-VALUE") {
		t.Fatalf("secret in the file: %s", data)
	}
	got, err := s.Load(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkPaired(t, got.Messages)
	if c := got.Messages[1].ToolCalls[0]; c.ID != "call-[REDACTED]" || c.Function.Name != "[REDACTED]" || got.Messages[2].Name != "[REDACTED]" {
		t.Errorf("stored call %+v, result name %q", c, got.Messages[2].Name)
	}
	if g[0].ToolCalls[0].ID != "call-SECRET-VALUE" {
		t.Error("the caller's history was modified")
	}
}
