package runview

import "github.com/odek-run/odek/internal/artifact"

// Artifact is one run artifact in the run report. The path is for the
// operator (a CI job may upload it); the model only ever sees the id.
type Artifact struct {
	ID        string `json:"id"`
	MediaType string `json:"media_type"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256,omitempty"`
	Path      string `json:"path"`
}

// Artifacts lists a store's artifacts for the report (nil for no store).
func Artifacts(s *artifact.Store) []Artifact {
	if s == nil {
		return nil
	}
	var out []Artifact
	for _, id := range s.IDs() {
		if e, ok := s.Lookup(id); ok {
			out = append(out, Artifact{ID: e.ID, MediaType: e.MediaType, SizeBytes: e.Size, SHA256: e.SHA256, Path: e.Path})
		}
	}
	return out
}
