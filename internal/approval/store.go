package approval

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/atomicfile"
)

// File names of the two approval stores under $ODEK_HOME.
const (
	SpawnFile = "mcp_approvals.json"
	ToolFile  = "mcp_tool_approvals.json"
	// HookFile holds the grants of project hooks (docs/HOOKS.md).
	HookFile = "hook_approvals.json"
)

// Record says what a stored grant covers, for people: `odek approvals list`
// shows it and `odek approvals revoke` selects by it. Only the key decides
// whether something is approved; the record is kept beside it.
type Record struct {
	// Kind is "spawn", "tool" or "hook".
	Kind string `json:"kind"`
	// Server is the server's configured name ("" for a hook).
	Server string `json:"server"`
	// Hook is a hook grant's event and Matcher its matcher as written.
	Hook    string `json:"hook,omitempty"`
	Matcher string `json:"matcher,omitempty"`
	// Tool is the tool's name (tool grants only).
	Tool string `json:"tool,omitempty"`
	// Dir is the project directory of a project server, "" for a global one.
	Dir string `json:"dir,omitempty"`
	// Command is the command line (or URL) the grant was given for, escaped
	// and capped for display; the key covers it in full.
	Command string `json:"command"`
	// Files maps the project files the grant is bound to (by path relative
	// to Dir) to their SHA-256 (spawn grants of project servers).
	Files map[string]string `json:"files,omitempty"`
	// SchemaSHA256 is the tool's schema fingerprint (tool grants only).
	SchemaSHA256 string `json:"schema_sha256,omitempty"`
	// GrantedAt is when the operator gave the grant.
	GrantedAt time.Time `json:"granted_at"`
}

// Entry is one stored grant. A nil Record is a grant written before odek
// recorded what grants cover (the old {"<key>":true} form).
type Entry struct {
	Key    string
	Record *Record
}

// Store is one approvals file: {"<key>": <Record>, ...}, where a value of
// true is read as a grant without a record (the format odek wrote first). A
// missing file is an empty store; a file that does not parse is an error
// naming it, never silently treated as empty (that would discard the
// operator's grants, and a planted broken file must not be ignored either).
// Writes re-read the file and change only their own keys, atomically, 0600.
type Store struct {
	path string
	mu   sync.Mutex
	keys map[string]*Record
}

// OpenStore reads path. An empty path gives a store that remembers grants
// for this process only. Its error is an *Error matching ErrStore.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, keys: map[string]*Record{}}
	if path == "" {
		return s, nil
	}
	keys, err := readStore(path)
	if err != nil {
		return nil, newErr("", err.Error(), err) // a setup error: the operator fixes the file
	}
	s.keys = keys
	return s, nil
}

func readStore(path string) (map[string]*Record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*Record{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrStore, path, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, badStore(path, err)
	}
	keys := make(map[string]*Record, len(raw))
	for k, v := range raw {
		switch {
		case bytes.Equal(v, []byte("true")):
			keys[k] = nil
		case bytes.Equal(v, []byte("false")):
		default:
			var r Record
			if err := json.Unmarshal(v, &r); err != nil {
				return nil, badStore(path, fmt.Errorf("key %.16s…: %v", k, err))
			}
			keys[k] = &r
		}
	}
	return keys, nil
}

func badStore(path string, err error) error {
	return fmt.Errorf("%w: %s is not a valid approvals file (want {\"<key>\":{...}} or {\"<key>\":true}): %v; fix or delete it", ErrStore, path, err)
}

// Has reports whether key is granted.
func (s *Store) Has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.keys[key]
	return ok
}

// hasRecord reports whether key is granted with a record.
func (s *Store) hasRecord(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[key] != nil
}

// Grant records key with what it covers and persists the store.
func (s *Store) Grant(key string, r Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[key] = &r
	return s.update(func(disk map[string]*Record) { disk[key] = &r })
}

// Entries returns every stored grant, sorted by server, kind, tool and key;
// grants without a record come last.
func (s *Store) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, 0, len(s.keys))
	for k, r := range s.keys {
		out = append(out, Entry{Key: k, Record: r})
	}
	slices.SortFunc(out, compareEntries)
	return out
}

func compareEntries(a, b Entry) int {
	switch {
	case a.Record == nil && b.Record != nil:
		return 1
	case a.Record != nil && b.Record == nil:
		return -1
	case a.Record != nil:
		if c := cmp.Or(cmp.Compare(a.Record.Server, b.Record.Server), cmp.Compare(a.Record.Kind, b.Record.Kind),
			cmp.Compare(a.Record.Tool, b.Record.Tool), cmp.Compare(a.Record.Hook, b.Record.Hook),
			cmp.Compare(a.Record.Matcher, b.Record.Matcher)); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Key, b.Key)
}

// Revoke removes every grant for which match is true and persists the
// store; it returns how many it removed.
func (s *Store) Revoke(match func(Entry) bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, r := range s.keys {
		if match(Entry{Key: k, Record: r}) {
			delete(s.keys, k)
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	err := s.update(func(disk map[string]*Record) {
		for k, r := range disk {
			if match(Entry{Key: k, Record: r}) {
				delete(disk, k)
			}
		}
	})
	return n, err
}

// update applies change to the file as it is on disk now (so what another
// odek wrote meanwhile is kept) and writes it back. Called with s.mu held.
func (s *Store) update(change func(map[string]*Record)) error {
	if s.path == "" {
		return nil
	}
	disk, err := readStore(s.path)
	if err != nil {
		return err
	}
	change(disk)
	out := make(map[string]any, len(disk))
	for k, r := range disk {
		if r == nil {
			out[k] = true
		} else {
			out[k] = r
		}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("%w: writing %s: %v", ErrStore, s.path, err)
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("%w: writing %s: %v", ErrStore, s.path, err)
	}
	return nil
}
