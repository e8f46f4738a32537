package session

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/atomicfile"
)

const (
	indexName = "index.json"
	// maxIndexBytes caps the index read; a bigger one is rebuilt from the files.
	maxIndexBytes = 8 << 20
	// staleSlack tolerates the gap between updated_at (set before the write)
	// and the file's modification time (set by the write).
	staleSlack = 2 * time.Second
	// tempMaxAge is when Cleanup removes temp files a killed writer left.
	tempMaxAge = time.Hour
)

func (s *Store) readIndex() []Summary {
	path := filepath.Join(s.dir, indexName)
	st, err := os.Stat(path)
	if err != nil || st.Size() > maxIndexBytes {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var entries []Summary
	if json.Unmarshal(data, &entries) != nil {
		return nil // a torn or foreign index: List rebuilds it from the files
	}
	return entries
}

func (s *Store) writeIndex(entries []Summary) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	data, err := json.Marshal(entries)
	if err != nil {
		return
	}
	_ = atomicfile.WriteCache(filepath.Join(s.dir, indexName), data, 0o600)
}

// indexPut replaces or adds one entry.
func (s *Store) indexPut(sum Summary) {
	entries := s.readIndex()
	for i := range entries {
		if entries[i].ID == sum.ID {
			if entries[i] == sum {
				return
			}
			entries[i] = sum
			s.writeIndex(entries)
			return
		}
	}
	s.writeIndex(append(entries, sum))
}

func (s *Store) indexRemove(id string) {
	entries := s.readIndex()
	out := entries[:0]
	for _, e := range entries {
		if e.ID != id {
			out = append(out, e)
		}
	}
	if len(out) != len(entries) {
		s.writeIndex(out)
	}
}

// List returns every session, most recently updated first. The index is
// checked against the directory: a session it lacks, or whose file is newer
// than its entry, is read from its file, and the index is rewritten. Files
// that cannot be read are skipped and named in the warnings.
func (s *Store) List() ([]Summary, []string, error) {
	out, warns, _, err := s.list()
	return out, warns, err
}

// list is List that also returns the first file it skipped because its MAC
// did not match.
func (s *Store) list() ([]Summary, []string, *TamperedError, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	} else if err != nil {
		return nil, nil, nil, err
	}
	byID := map[string]Summary{}
	for _, e := range s.readIndex() {
		byID[e.ID] = e
	}
	var out []Summary
	var warns []string
	var tampered *TamperedError
	healed := false
	for _, ent := range ents {
		id, ok := strings.CutSuffix(ent.Name(), ".json")
		if !ok || ValidID(id) != nil || !ent.Type().IsRegular() {
			continue
		}
		sum, known := byID[id]
		if info, err := ent.Info(); err == nil && (!known || info.ModTime().After(sum.UpdatedAt.Add(staleSlack))) {
			sess, err := s.Load(id)
			if err != nil {
				if te := (*TamperedError)(nil); errors.As(err, &te) && tampered == nil {
					tampered = te
				}
				warns = append(warns, err.Error())
				continue
			}
			sum, healed = sess.Summary(), true
		}
		delete(byID, id)
		out = append(out, sum)
	}
	if healed || len(byID) > 0 {
		s.writeIndex(append([]Summary(nil), out...))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.After(out[j].UpdatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out, warns, tampered, nil
}

// Newest loads the most recently updated session.
func (s *Store) Newest() (*Session, error) {
	list, _, tampered, err := s.list()
	if err != nil {
		return nil, err
	}
	if tampered != nil {
		return nil, tampered // the newest may be the changed one: never fall back silently
	}
	if len(list) == 0 {
		return nil, ErrNoSessions
	}
	return s.Load(list[0].ID)
}

// NewestIn loads the most recently updated session that ran in dir; a
// *NoSessionInDirError when none did (sessions from before directories
// were recorded have none).
func (s *Store) NewestIn(dir string) (*Session, error) {
	list, _, err := s.List()
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, ErrNoSessions
	}
	for _, sum := range list {
		if sum.Dir == dir {
			return s.Load(sum.ID)
		}
	}
	return nil, &NoSessionInDirError{Dir: dir, Elsewhere: len(list)}
}

// Cleanup deletes the sessions last updated more than maxAge ago and the temp
// files killed writers left behind; it returns the ids it deleted.
func (s *Store) Cleanup(maxAge time.Duration) ([]string, error) {
	list, _, err := s.List()
	if err != nil {
		return nil, err
	}
	cutoff := s.now().Add(-maxAge)
	var removed []string
	for _, sum := range list {
		if sum.UpdatedAt.Before(cutoff) {
			if err := s.Delete(sum.ID); err != nil {
				return removed, err
			}
			removed = append(removed, sum.ID)
		}
	}
	s.removeStaleTemps()
	return removed, nil
}

// removeStaleTemps removes ".<name>.tmp-*" files older than tempMaxAge.
func (s *Store) removeStaleTemps() {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	old := s.now().Add(-tempMaxAge)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") || !strings.Contains(e.Name(), ".tmp-") || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(old) {
			_ = os.Remove(filepath.Join(s.dir, e.Name()))
		}
	}
}
