// Package atomicfile writes files so that readers see either the old file or
// the whole new one, never a torn write: approvals, artifacts and (later)
// sessions all go through it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to a fresh temp file beside path with mode perm, fsyncs
// it, renames it over path and fsyncs the directory. The temp file is
// removed if anything fails. The directory must exist.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // best effort: the file itself is already durable
		d.Close()
	}
	return nil
}
