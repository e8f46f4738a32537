package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/odek-run/odek/internal/atomicfile"
	"github.com/odek-run/odek/internal/llm"
)

// DefaultMaxBytes caps a session file, on load and on save (32 MiB).
const DefaultMaxBytes = 32 << 20

// Options configure a Store.
type Options struct {
	Dir      string              // $ODEK_HOME/sessions; created 0700 on first write
	Now      func() time.Time    // nil = time.Now
	Redact   func(string) string // applied at save; nil = no redaction
	MaxBytes int64               // file size cap; 0 = DefaultMaxBytes
	// KeyPath is the per-install MAC key ($ODEK_HOME/session.key), created
	// on first use; "" signs nothing and verifies nothing (every loaded
	// session is unverified).
	KeyPath string
}

// Store reads and writes the sessions of one directory.
type Store struct {
	dir      string
	now      func() time.Time
	redact   func(string) string
	maxBytes int64
	keys     *keyring // nil without Options.KeyPath
}

// NewStore returns a store over o.Dir; it touches nothing until used.
func NewStore(o Options) *Store {
	s := &Store{dir: o.Dir, now: o.Now, redact: o.Redact, maxBytes: o.MaxBytes}
	if s.now == nil {
		s.now = time.Now
	}
	if s.redact == nil {
		s.redact = func(v string) string { return v }
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxBytes
	}
	if o.KeyPath != "" {
		s.keys = &keyring{path: o.KeyPath}
	}
	return s
}

// Dir is the sessions directory.
func (s *Store) Dir() string { return s.dir }

// Path returns the file of session id, after validating id.
func (s *Store) Path(id string) (string, error) {
	if err := ValidID(id); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, id+".json"), nil
}

// New describes a session to create.
type New struct {
	// ID is the session's id, chosen (--session-id) and valid by ValidID;
	// "" takes a fresh one (NewID).
	ID              string
	Model, Provider string
	Task            string        // the first prompt (stored redacted)
	Messages        []llm.Message // usually [system?, user(task)]
	Refs            []ExternalRef // validated; stamped and de-duplicated here
	Dir             string        // the working directory, symlinks resolved
}

// Create makes a new session and writes it. It never replaces one: an id
// that is taken is an *ExistsError.
func (s *Store) Create(n New) (*Session, []string, error) {
	now := s.now().UTC()
	id := n.ID
	if id == "" {
		id = NewID(now)
	} else if err := ValidID(id); err != nil {
		return nil, nil, err
	}
	sess := &Session{
		ID: id, AuthToken: newToken(), CreatedAt: now, UpdatedAt: now,
		Model: n.Model, Provider: n.Provider, Task: s.redact(n.Task), Dir: n.Dir,
	}
	sess.ExternalRefs, _ = MergeRefs(nil, n.Refs, now)
	sess.Update(n.Messages)
	warns, err := s.save(sess, true)
	if err != nil {
		return nil, warns, err
	}
	return sess, warns, nil
}

// Save redacts what is not yet redacted, applies the size cap and writes the
// session atomically; then it updates the index (best effort: the index heals
// on the next List). The warnings (the storage cap, once per session) are for
// the operator.
func (s *Store) Save(sess *Session) ([]string, error) {
	return s.save(sess, false)
}

// save is Save; fresh writes the file only where none is, an
// *ExistsError otherwise.
func (s *Store) save(sess *Session, fresh bool) ([]string, error) {
	path, err := s.Path(sess.ID)
	if err != nil {
		return nil, err
	}
	sess.UpdatedAt = s.now().UTC()
	redactFrom(sess.Messages, sess.RedactBoundary, s.redact)
	sess.RedactBoundary = len(sess.Messages)
	sess.MAC = ""
	data, warns, err := s.encode(sess)
	if err != nil {
		return nil, err
	}
	if s.keys != nil {
		key, err := s.keys.get()
		if err != nil {
			return warns, err
		}
		data, sess.MAC = sign(key, data)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return warns, fmt.Errorf("session %s: %w", sess.ID, err)
	}
	if fresh {
		if err := writeNew(path, data); errors.Is(err, fs.ErrExist) {
			return warns, &ExistsError{ID: sess.ID}
		} else if err != nil {
			return warns, fmt.Errorf("session %s: save: %w", sess.ID, err)
		}
	} else if err := atomicfile.Write(path, data, 0o600); err != nil {
		return warns, fmt.Errorf("session %s: save: %w", sess.ID, err)
	}
	sess.diskSize = len(data)
	s.indexPut(sess.Summary())
	return warns, nil
}

// encode serializes sess, dropping the oldest groups from the written copy
// when the file would pass the cap.
func (s *Store) encode(sess *Session) ([]byte, []string, error) {
	data, err := json.Marshal(sess)
	if err != nil {
		return nil, nil, fmt.Errorf("session %s: encode: %w", sess.ID, err)
	}
	if int64(len(data)) <= s.maxBytes {
		sess.stored = len(sess.Messages)
		return data, nil, nil
	}
	sizes, err := messageSizes(sess.Messages)
	if err != nil {
		return nil, nil, fmt.Errorf("session %s: encode: %w", sess.ID, err)
	}
	overhead := int64(len(data) - arrayBytes(sizes))
	capped := *sess
	msgs, dropped, err := capMessages(sess.Messages, s.maxBytes-overhead, s.maxBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("session %s: %w", sess.ID, err)
	}
	capped.Messages, capped.RedactBoundary = msgs, len(msgs)
	if data, err = json.Marshal(&capped); err != nil {
		return nil, nil, fmt.Errorf("session %s: encode: %w", sess.ID, err)
	}
	sess.stored = len(msgs)
	var warns []string
	if !sess.capWarn {
		sess.capWarn = true
		warns = append(warns, fmt.Sprintf("session %s is over the %d-byte storage limit: its %d oldest message group(s) are no longer saved", sess.ID, s.maxBytes, dropped))
	}
	return data, warns, nil
}

// Load reads session id, refusing files over the cap, files that are not
// regular, and files whose embedded id is not id.
func (s *Store) Load(id string) (*Session, error) {
	path, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	// O_NONBLOCK: a FIFO put in the file's place must be refused below,
	// not block the open until a writer comes.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("session %s: %w", id, ErrNotFound)
	} else if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("session %s: %s is not a regular file", id, path)
	}
	if st.Size() > s.maxBytes {
		return nil, &TooLargeError{ID: id, Size: st.Size(), Limit: s.maxBytes}
	}
	data, err := io.ReadAll(io.LimitReader(f, s.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	if int64(len(data)) > s.maxBytes {
		return nil, &TooLargeError{ID: id, Size: int64(len(data)), Limit: s.maxBytes}
	}
	var key []byte
	if s.keys != nil {
		if key, err = s.keys.get(); err != nil {
			return nil, err
		}
	}
	return decode(id, data, key)
}

// Decode parses a session file's bytes for session id (the file name),
// without a key: the session is unverified (and tainted).
func Decode(id string, data []byte) (*Session, error) { return decode(id, data, nil) }

// decode parses and, with a key, verifies a session file's bytes.
func decode(id string, data []byte, key []byte) (*Session, error) {
	var sess Session
	if err := json.Unmarshal(data, &sess); err != nil {
		return nil, fmt.Errorf("session %s: the file is not valid session JSON: %w", id, err)
	}
	if sess.ID != id {
		return nil, &IDMismatchError{File: id, Embedded: sess.ID}
	}
	if err := verify(&sess, key); err != nil {
		return nil, err
	}
	deriveKinds(sess.Messages) // after verify: the MAC covers the file as written
	if sess.RedactBoundary < 0 || sess.RedactBoundary > len(sess.Messages) {
		sess.RedactBoundary = 0 // unknown: redact everything again at the next save
	}
	sess.raw = append([]llm.Message(nil), sess.Messages[:sess.RedactBoundary]...)
	sess.diskSize, sess.stored = len(data), len(sess.Messages)
	return &sess, nil
}

// Delete removes session id.
func (s *Store) Delete(id string) error {
	path, err := s.Path(id)
	if err != nil {
		return err
	}
	if err := os.Remove(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	} else if err != nil {
		return fmt.Errorf("session %s: delete: %w", id, err)
	}
	s.indexRemove(id)
	return nil
}
