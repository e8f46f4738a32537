package session

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
)

// Open carries on session id when it exists, and otherwise creates it under
// that id from n (n.ID is ignored): what --session-id does, so a CI step
// that is retried resumes its conversation instead of starting over.
// resumed says which happened. Two runs that create one id at once get one
// session: the second loads what the first wrote.
func (s *Store) Open(id string, n New) (sess *Session, resumed bool, warns []string, err error) {
	if err := ValidID(id); err != nil {
		return nil, false, nil, err
	}
	if sess, err := s.Load(id); err == nil || !errors.Is(err, ErrNotFound) {
		return sess, err == nil, nil, err
	}
	n.ID = id
	sess, warns, err = s.Create(n)
	var exists *ExistsError
	if errors.As(err, &exists) {
		sess, err = s.Load(id)
		return sess, err == nil, warns, err
	}
	return sess, false, warns, err
}

// Fork copies session id, verified as Load verifies it, into a new session
// whose Parent is id: newID when given (valid by ValidID, not taken), else
// a fresh one. The copy is signed afresh under its own id, keeps the
// conversation, task, model, directory, refs and taint (an unverified
// session loads tainted, so its copy is tainted too), and gets its own token and times.
// The parent is not changed.
func (s *Store) Fork(id, newID string) (*Session, []string, error) {
	src, err := s.Load(id)
	if err != nil {
		return nil, nil, err
	}
	now := s.now().UTC()
	if newID == "" {
		newID = NewID(now)
	} else if err := ValidID(newID); err != nil {
		return nil, nil, err
	}
	f := &Session{
		ID: newID, Parent: src.ID, AuthToken: newToken(), CreatedAt: now, UpdatedAt: now,
		Model: src.Model, Provider: src.Provider, Turns: src.Turns, Task: src.Task, Dir: src.Dir,
		Sandbox: src.Sandbox, Messages: slices.Clone(src.Messages), RedactBoundary: src.RedactBoundary,
		ExternalRefs: slices.Clone(src.ExternalRefs), Tainted: src.Tainted, // Load taints an unverified file
		raw: slices.Clone(src.raw),
	}
	warns, err := s.save(f, true)
	if err != nil {
		return nil, warns, err
	}
	return f, warns, nil
}

// writeNew writes data to path only when nothing is there: a temp file
// beside it, fsynced and linked into place (fs.ErrExist when path is
// taken), then the directory fsynced.
func writeNew(path string, data []byte) error {
	if err := linkNewFile(path, data); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
