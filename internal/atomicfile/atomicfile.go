// Package atomicfile writes files so that readers see either the old file or
// the whole new one, never a torn write: approvals, artifacts and sessions
// all go through it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to a fresh temp file beside path (created O_EXCL) with
// mode perm, fsyncs it, renames it over path and fsyncs the directory. The
// temp file is removed if anything fails. The directory must exist.
func Write(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WriteCache is Write without the fsyncs: readers still see the old file or
// the new one, but a power loss may lose the update or leave an empty file.
// For files that can be rebuilt from others (an index).
func WriteCache(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm os.FileMode, durable bool) (err error) {
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
	if durable {
		if err = f.Sync(); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // best effort: the file itself is already durable
		d.Close()
	}
	return nil
}
