package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/odek-run/odek/internal/llm"
)

// transcript is the JSONL file a hook's transcript_path names: one line
// per message of the run's conversation, in the order each entered it,
// every string redacted. It is made at the first hook that fires, in a
// directory of its own (0700; the file 0600) that Close removes, and is
// appended to before each firing, so it never holds a message twice.
type transcript struct {
	mu      sync.Mutex
	tempDir string
	redact  func(string) string
	dir     string
	path    string
	f       *os.File
	written int    // messages of the history written
	pending string // the first call id of the pending message written ahead
	failed  error
}

// line is one transcript entry (odek's form of a message).
type line struct {
	Role       string          `json:"role"`
	Content    string          `json:"content,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  []transcriptUse `json:"tool_calls,omitempty"`
}

type transcriptUse struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// update appends what is new in history (and pending, once) and returns
// the file's path; "" when the file cannot be written (said once through
// the returned error).
func (t *transcript) update(history []llm.Message, pending *llm.Message) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed != nil {
		return "", nil
	}
	if t.f == nil {
		if err := t.open(); err != nil {
			t.failed = err
			return "", err
		}
	}
	for t.written < len(history) {
		m := &history[t.written]
		t.written++
		if t.pending != "" && len(m.ToolCalls) > 0 && m.ToolCalls[0].ID == t.pending {
			t.pending = "" // written ahead, while its calls ran
			continue
		}
		if err := t.write(m); err != nil {
			return "", err
		}
	}
	if pending != nil && len(pending.ToolCalls) > 0 && t.pending != pending.ToolCalls[0].ID {
		if err := t.write(pending); err != nil {
			return "", err
		}
		t.pending = pending.ToolCalls[0].ID
	}
	return t.path, nil
}

func (t *transcript) open() error {
	dir, err := os.MkdirTemp(t.tempDir, fmt.Sprintf("odek-tmp-%d-hooks-", os.Getpid()))
	if err != nil {
		return fmt.Errorf("hooks: transcript: %w", err)
	}
	path := filepath.Join(dir, "transcript.jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		_ = os.RemoveAll(dir)
		return fmt.Errorf("hooks: transcript: %w", err)
	}
	t.dir, t.path, t.f = dir, path, f
	return nil
}

func (t *transcript) write(m *llm.Message) error {
	l := line{Role: m.Role, Content: t.redact(m.Content), Kind: string(m.Kind), Name: t.redact(m.Name), ToolCallID: m.ToolCallID}
	for _, c := range m.ToolCalls {
		l.ToolCalls = append(l.ToolCalls, transcriptUse{ID: c.ID, Name: t.redact(c.Function.Name), Arguments: t.redact(c.Function.Arguments)})
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := t.f.Write(append(b, '\n')); err != nil {
		t.failed = err
		return fmt.Errorf("hooks: transcript: %w", err)
	}
	return nil
}

// close removes the transcript and its directory.
func (t *transcript) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		_ = t.f.Close()
		_ = os.RemoveAll(t.dir)
		t.f = nil
	}
	t.failed = os.ErrClosed
}
