package artifact

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Why opening a ref's path below its root failed, beyond fs.ErrNotExist.
var (
	errSymlinkInPath = errors.New("path goes through a symlink")
	errNotDirInPath  = errors.New("a path component is not a directory")
	errEscapesRoot   = errors.New("path leaves the artifact root")
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
