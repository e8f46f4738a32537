package artifact

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/odek-run/odek/internal/safepath"
)

// Why opening a ref's path below its root failed, beyond fs.ErrNotExist:
// internal/safepath's reasons, which does the opening.
var (
	errSymlinkInPath = safepath.ErrSymlink
	errNotDirInPath  = safepath.ErrNotDir
	errEscapesRoot   = safepath.ErrEscapes
)

// openFileFlags opens an artifact's file: read-only, never blocking on a
// FIFO swapped in, never inherited by a child.
const openFileFlags = safepath.FileFlags

// openRoot and openBeneath reach a file without following any symlink; see
// internal/safepath.
var (
	openRoot    = safepath.OpenRoot
	openBeneath = safepath.OpenBeneath
)

// fileID is a file's identity: device and inode.
type fileID struct{ dev, ino uint64 }

// fileStat is what the checks on an open artifact file compare.
type fileStat struct {
	mode  fs.FileMode
	size  int64
	id    fileID
	nlink uint64
}

// location says how to reach a verified file again: its root (resolved when
// it was validated) and the path below it, opened without following
// symlinks, plus the identity the reopened file must still have.
type location struct {
	root, rel string
	id        fileID
}

// path is the file's absolute path, for odek's own records only.
func (l location) path() string { return filepath.Join(l.root, l.rel) }

// open reopens the file below its root without following any symlink.
func (l location) open() (*os.File, error) {
	root, err := openRoot(l.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return openBeneath(root, l.rel, openFileFlags)
}
