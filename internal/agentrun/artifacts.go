package agentrun

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/odek-run/odek/internal/artifact"
)

// capWarning is what the operator is told of a cut result the run's
// artifact cap kept from being saved (the model gets the notice of
// artifact.NotSavedNotice in the tool result).
func capWarning(e *artifact.CapError) string {
	return fmt.Sprintf("artifacts: %s of %s was not kept: this run's saved results hold %s of their %s cap "+
		"(maintenance.artifacts_max_run_mib); the model was told it cannot page it",
		artifact.FormatBytes(e.Size), e.Source, artifact.FormatBytes(e.Used), artifact.FormatBytes(e.Max))
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

// SweptDir is one artifact directory a sweep removed, and the bytes its
// files held.
type SweptDir struct {
	Name  string
	Bytes int64
}

// SweepArtifacts removes the run artifact directories (run or session ids)
// not modified for maxAge (0: all of them), except keep, and returns them.
// It runs at the end of every run, after the answer is out, and costs one
// directory listing when there is nothing to do; errors are ignored (a
// directory that cannot be removed is left and not listed), because
// cleanup must never fail a run.
func SweepArtifacts(home string, maxAge time.Duration, now time.Time, keep string) []SweptDir {
	root := filepath.Join(home, "artifacts")
	ents, err := os.ReadDir(root)
	if err != nil || maxAge < 0 {
		return nil
	}
	var removed []SweptDir
	for _, e := range ents {
		if !e.IsDir() || e.Name() == keep || !isRunDirName(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < maxAge {
			continue
		}
		dir := filepath.Join(root, e.Name())
		size := dirBytes(dir)
		if os.RemoveAll(dir) == nil {
			removed = append(removed, SweptDir{Name: e.Name(), Bytes: size})
		}
	}
	return removed
}

// dirBytes is what the regular files under dir hold; symlinks are not
// followed.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
