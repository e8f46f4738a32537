package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"

	"github.com/odek-run/odek/internal/atomicfile"
)

// Store is the per-run (or per-session) artifact registry rooted at
// $ODEK_HOME/artifacts/<run-or-session-id>/. It holds results odek saved
// itself (ids result-1, result-2, …, files in the store directory) and
// external artifacts that passed Validate (files left where they are).
// artifact_read serves only what is registered here, by id. Safe for
// concurrent use.
type Store struct {
	dir string

	mu        sync.Mutex
	saved     int
	entries   map[string]*entry
	used      int64           // bytes of the results saved (or being saved)
	maxSaved  int64           // cap on used; 0: none
	onRefused func(*CapError) // told of each save the cap refused
}

// Entry describes one registered artifact. Path is for odek only; it is
// never shown to the model.
type Entry struct {
	ID, Path, MediaType, Source string
	Size                        int64
	SHA256                      string
}

type entry struct {
	Entry
	loc location // how every read reaches the file, and the identity it must have
}

// savedID matches the ids SaveResult hands out; external refs may not take
// them. Compiled on the first Register, not at every process start.
var savedID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^result-[0-9]+$`) })

// NewStore returns a store for dir. Nothing touches the disk until the first
// SaveResult, which creates dir with mode 0700.
func NewStore(dir string) *Store {
	return &Store{dir: dir, entries: make(map[string]*entry)}
}

// Dir returns the directory saved results are written to.
func (s *Store) Dir() string { return s.dir }

// LimitSaved caps the bytes of the results SaveResult keeps, all together
// (maintenance.artifacts_max_run_mib): a save that would pass max is refused
// with a *CapError and writes nothing, and refused, when set, is told of it
// (for the operator; the caller tells the model, see NotSavedNotice). The
// results saved before stay readable: refusing the new one, rather than
// dropping the oldest, keeps every id the model was shown and every path a
// report listed. max <= 0 sets no cap. Call it before the first save.
func (s *Store) LimitSaved(max int64, refused func(*CapError)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxSaved, s.onRefused = max, refused
}

// reserve takes size bytes of the cap for one save and its id, or returns
// the *CapError that refuses it (after telling onRefused, outside the lock).
func (s *Store) reserve(source string, size int64) (string, error) {
	s.mu.Lock()
	if s.maxSaved > 0 && s.used+size > s.maxSaved {
		ce := &CapError{Source: source, Size: size, Used: s.used, Max: s.maxSaved}
		refused := s.onRefused
		s.mu.Unlock()
		if refused != nil {
			refused(ce)
		}
		return "", ce
	}
	s.used += size
	s.saved++
	id := "result-" + strconv.Itoa(s.saved)
	s.mu.Unlock()
	return id, nil
}

func (s *Store) release(size int64) {
	s.mu.Lock()
	s.used -= size
	s.mu.Unlock()
}

// SaveResult writes data atomically (temp file, fsync, rename; mode 0600) as
// a new artifact and registers it. source says where the data came from (for
// example "mcp:<server>:<tool>"); it is kept for the operator, not the model.
// A save past LimitSaved's cap is refused with a *CapError.
func (s *Store) SaveResult(source, mediaType string, data []byte) (id string, err error) {
	id, err = s.reserve(source, int64(len(data)))
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			s.release(int64(len(data)))
		}
	}()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", fmt.Errorf("artifact store: %w", err)
	}
	path := filepath.Join(s.dir, id)
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return "", fmt.Errorf("artifact store: save %s: %w", id, err)
	}
	loc, err := s.locateSaved(id)
	if err != nil {
		return "", fmt.Errorf("artifact store: save %s: %w", id, err)
	}
	sum := sha256.Sum256(data)
	e := &entry{
		Entry: Entry{ID: id, Path: loc.path(), MediaType: mediaType, Source: source,
			Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])},
		loc: loc,
	}
	s.mu.Lock()
	s.entries[id] = e
	s.mu.Unlock()
	return id, nil
}

// locateSaved finds a file SaveResult just wrote, the way every read will
// reach it, and records its identity.
func (s *Store) locateSaved(id string) (location, error) {
	root, err := filepath.EvalSymlinks(s.dir)
	if err != nil {
		return location{}, err
	}
	loc := location{root: root, rel: id}
	f, err := loc.open()
	if err != nil {
		return location{}, err
	}
	defer f.Close()
	st, err := stat(f)
	if err != nil {
		return location{}, err
	}
	loc.id = st.id
	return loc, nil
}

// Register makes a validated external artifact readable through artifact_read
// under id (normally v.Ref.ID, the id the model saw in the metadata line).
// It does not touch the disk: v carries the identity Validate measured, and
// every read checks the file still has it. Registering an id again replaces
// the earlier artifact, so the id always names the artifact the model saw
// most recently; ids of the result-N form are reserved for saved results and
// refused with ErrReservedID, and a Verified not made by Validate is refused
// with ErrUnverified.
func (s *Store) Register(v Verified, id string) error {
	if id == "" {
		return ErrIDRequired
	}
	if savedID().MatchString(id) {
		return fmt.Errorf("%w: %q", ErrReservedID, id)
	}
	if v.loc.root == "" {
		return fmt.Errorf("%w: %q", ErrUnverified, id)
	}
	e := &entry{
		Entry: Entry{ID: id, Path: v.Path, MediaType: v.Ref.MediaType,
			Source: "artifact-ref", Size: v.Size, SHA256: v.SHA256},
		loc: v.loc,
	}
	s.mu.Lock()
	s.entries[id] = e
	s.mu.Unlock()
	return nil
}

// Lookup returns the artifact registered under id.
func (s *Store) Lookup(id string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[id]
	if !ok {
		return Entry{}, false
	}
	return e.Entry, true
}

// IDs returns the registered ids, sorted.
func (s *Store) IDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.entries))
	for id := range s.entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (s *Store) lookup(id string) (*entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[id]
	return e, ok
}
