package main

import (
	"os"
	"path/filepath"
	"regexp"
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

// runDirName is what odek names run artifact directories: a run id (32 hex)
// or a session id. Anything else under artifacts/ is not ours to delete.
var runDirName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

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
		if !e.IsDir() || e.Name() == keep || !runDirName.MatchString(e.Name()) {
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
