package safepath

import "errors"

// Why a path could not be opened below its directory, beyond fs.ErrNotExist.
var (
	ErrSymlink     = errors.New("path goes through a symlink")
	ErrNotDir      = errors.New("a path component is not a directory")
	ErrEscapes     = errors.New("path leaves its root directory")
	ErrUnsupported = errors.New("files cannot be opened without following symlinks on this platform")
)
