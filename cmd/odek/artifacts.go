package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/odek-run/odek/internal/artifact"
)

// reportArtifact is one run artifact in the run report. The path is for the
// operator (a CI job may upload it); the model only ever sees the id.
type reportArtifact struct {
	ID        string `json:"id"`
	MediaType string `json:"media_type"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256,omitempty"`
	Path      string `json:"path"`
}

func reportArtifacts(s *artifact.Store) []reportArtifact {
	if s == nil {
		return nil
	}
	var out []reportArtifact
	for _, id := range s.IDs() {
		if e, ok := s.Lookup(id); ok {
			out = append(out, reportArtifact{ID: e.ID, MediaType: e.MediaType, SizeBytes: e.Size, SHA256: e.SHA256, Path: e.Path})
		}
	}
	return out
}

// isRunDirName reports a name odek gives run artifact directories (a run id
// or a session id: ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$). Anything else under
// artifacts/ is not ours to delete. Hand-written: the regexp's {0,127}
// compiles into a 127-fold program that cost 0.7 ms at every start.
func isRunDirName(name string) bool {
	if name == "" || len(name) > 128 || !isAlnum(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// sweepArtifacts removes run artifact directories older than maxAge (by
// modification time), except keep. It runs once at the end of a run, after
// the answer is out, and costs one directory listing when there is nothing
// to do; errors are ignored because cleanup must never fail a run.
func sweepArtifacts(home string, maxAge time.Duration, now time.Time, keep string) int {
	root := filepath.Join(home, "artifacts")
	ents, err := os.ReadDir(root)
	if err != nil || maxAge <= 0 {
		return 0
	}
	removed := 0
	for _, e := range ents {
		if !e.IsDir() || e.Name() == keep || !isRunDirName(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < maxAge {
			continue
		}
		if os.RemoveAll(filepath.Join(root, e.Name())) == nil {
			removed++
		}
	}
	return removed
}
