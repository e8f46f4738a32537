package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/odek-run/odek/internal/atomicfile"
)

// File names of the two approval stores under $ODEK_HOME.
const (
	SpawnFile = "mcp_approvals.json"
	ToolFile  = "mcp_tool_approvals.json"
)

// Store is one approvals file, {"<key>":true,...}. A missing file is
// an empty store; a file that does not parse is an error naming it, never
// silently treated as empty (that would discard the operator's grants, and a
// planted broken file must not be ignored either). Writes are atomic and 0600.
type Store struct {
	path string
	mu   sync.Mutex
	keys map[string]bool
}

// OpenStore reads path. An empty path gives a store that remembers
// grants for this process only.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, keys: map[string]bool{}}
	if path == "" {
		return s, nil
	}
	keys, err := readApprovals(path)
	if err != nil {
		return nil, err
	}
	s.keys = keys
	return s, nil
}

func readApprovals(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrStore, path, err)
	}
	keys := map[string]bool{}
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("%w: %s is not a valid approvals file (want {\"<key>\":true}): %v; fix or delete it", ErrStore, path, err)
	}
	return keys, nil
}

// Has reports whether key is granted.
func (s *Store) Has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[key]
}

// Grant records key and persists the store. The file is re-read first so a
// grant written meanwhile by another odek process is kept.
func (s *Store) Grant(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[key] = true
	if s.path == "" {
		return nil
	}
	onDisk, err := readApprovals(s.path)
	if err != nil {
		return err
	}
	for k, v := range onDisk {
		if v {
			s.keys[k] = true
		}
	}
	data, err := json.MarshalIndent(s.keys, "", "  ")
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
