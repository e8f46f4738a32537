package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/llm"
)

// These tests close survivors of mutation testing (scripts/hand-mutate.sh):
// every field that can carry a secret is redacted in the file.

// reasoning is an assistant message with a secret in every field that can
// carry one.
func reasoning() llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: "content SECRET-VALUE", ReasoningContent: "thinking about SECRET-VALUE",
		ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "t", Arguments: `{"k":"SECRET-VALUE"}`}}}}
}

func fileOf(t *testing.T, s *Store, id string) string {
	t.Helper()
	path, err := s.Path(id)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Reasoning, content and tool-call arguments are redacted at the first
// save and at a later one, and the caller's history keeps its values.
func TestEveryFieldRedactedInTheFile(t *testing.T) {
	s, _ := newTestStore(t)
	hist := []llm.Message{system("sys"), user("task"), reasoning(),
		{Role: llm.RoleTool, ToolCallID: "c1", Name: "t", Content: "result SECRET-VALUE"}}
	sess, _, err := s.Create(New{Model: "m", Task: "task SECRET-VALUE", Messages: hist})
	if err != nil {
		t.Fatal(err)
	}
	data := fileOf(t, s, sess.ID)
	if strings.Contains(data, "SECRET-VALUE") {
		t.Fatalf("the file holds the secret after Create:\n%s", data)
	}
	for _, want := range []string{`"reasoning_content":"thinking about [REDACTED]"`, `content [REDACTED]`, `"task":"task [REDACTED]"`, `result [REDACTED]`} {
		if !strings.Contains(data, want) {
			t.Errorf("the file lacks %s:\n%s", want, data)
		}
	}
	if !strings.Contains(data, `\"k\":\"[REDACTED]\"`) {
		t.Errorf("tool-call arguments not redacted:\n%s", data)
	}
	if hist[2].ToolCalls[0].Function.Arguments != `{"k":"SECRET-VALUE"}` || hist[2].ReasoningContent != "thinking about SECRET-VALUE" {
		t.Fatalf("redaction changed the caller's history: %+v", hist[2])
	}
	// A later turn: new messages are redacted too.
	hist = append(hist, reasoning(), answer("done SECRET-VALUE"))
	sess.Update(hist)
	if _, err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	if data := fileOf(t, s, sess.ID); strings.Contains(data, "SECRET-VALUE") {
		t.Fatalf("the file holds the secret after a later save:\n%s", data)
	}
}

// A message whose reasoning alone changed is redacted again.
func TestChangedReasoningRedactedAgain(t *testing.T) {
	s, _ := newTestStore(t)
	first := llm.Message{Role: llm.RoleAssistant, Content: "same", ReasoningContent: "nothing"}
	hist := []llm.Message{user("task"), first}
	sess, _, err := s.Create(New{Model: "m", Messages: hist})
	if err != nil {
		t.Fatal(err)
	}
	hist = []llm.Message{user("task"), {Role: llm.RoleAssistant, Content: "same", ReasoningContent: "now SECRET-VALUE"}}
	if !sess.Changed(hist) {
		t.Fatal("a change of reasoning alone is not a change")
	}
	sess.Update(hist)
	if _, err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	if data := fileOf(t, s, sess.ID); strings.Contains(data, "SECRET-VALUE") || !strings.Contains(data, "now [REDACTED]") {
		t.Fatalf("changed reasoning not redacted:\n%s", data)
	}
	for _, m := range []llm.Message{
		{Role: llm.RoleUser, Content: "task", Name: "x"},
		{Role: llm.RoleTool, Content: "task", ToolCallID: "x"},
	} {
		if !sess.Changed([]llm.Message{m, hist[1]}) {
			t.Errorf("a change of %+v is not a change", m)
		}
	}
	changedCall := reasoning()
	other := reasoning()
	other.ToolCalls[0].Function.Arguments = `{}`
	sess.Update([]llm.Message{user("task"), changedCall})
	if !sess.Changed([]llm.Message{user("task"), other}) {
		t.Error("a change of tool-call arguments is not a change")
	}
}

// The directory is 0700 and the file 0600 also under a permissive umask;
// a file whose boundary is out of range is redacted again in full.
func TestModesAndLoadedBoundary(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	s, _ := newTestStore(t)
	sess, _, err := s.Create(New{Model: "m", Messages: []llm.Message{user("task")}})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.ID)
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", st.Mode().Perm())
	}
	data := `{"id":"` + sess.ID + `","messages":[{"role":"user","content":"SECRET-VALUE"}],"redact_boundary":5}`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.RedactBoundary != 0 {
		t.Fatalf("boundary %d past the messages kept", got.RedactBoundary)
	}
	if _, err := s.Save(got); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(fileOf(t, s, sess.ID), "SECRET-VALUE") {
		t.Fatal("a message past a bad boundary was not redacted")
	}
}

// A session file that is not a regular file, or that names another id,
// is refused.
func TestLoadRefusesOddFiles(t *testing.T) {
	s, _ := newTestStore(t)
	sess, _, err := s.Create(New{Model: "m", Messages: []llm.Message{user("task")}})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := s.Create(New{Model: "m", Messages: []llm.Message{user("task")}})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.ID)
	otherPath, _ := s.Path(other.ID)
	if err := os.Rename(otherPath, path); err != nil {
		t.Fatal(err)
	}
	var mm *IDMismatchError
	if _, err := s.Load(sess.ID); !errors.As(err, &mm) {
		t.Fatalf("Load of a file naming another id: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// Before the fix Load blocked in open(2) forever: no writer ever comes.
	done := make(chan error, 1)
	go func() { _, err := s.Load(sess.ID); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
			t.Fatalf("Load of a FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load of a FIFO blocks in open")
	}
}
