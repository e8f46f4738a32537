//go:build !unix

package safepath

import (
	"io/fs"
	"os"
)

// Flags exist so that callers compile; every call fails with ErrUnsupported.
const (
	FileFlags = os.O_RDONLY
	DirFlags  = os.O_RDONLY
)

// ForceWalk is a no-op where nothing can be opened safely.
func ForceWalk(bool) bool { return false }

// OpenRoot fails: see the package doc.
func OpenRoot(string) (*os.File, error) { return nil, ErrUnsupported }

// OpenBeneath fails: see the package doc.
func OpenBeneath(*os.File, string, int) (*os.File, error) { return nil, ErrUnsupported }

// OpenFD fails: see the package doc.
func OpenFD(*os.File, string, int) (int, error) { return -1, ErrUnsupported }

// MkdirAll fails: see the package doc.
func MkdirAll(*os.File, string, fs.FileMode) (*os.File, error) { return nil, ErrUnsupported }

// Lstat fails: see the package doc.
func Lstat(*os.File, string) (fs.FileMode, error) { return 0, ErrUnsupported }

// Readlink fails: see the package doc.
func Readlink(*os.File, string) (string, error) { return "", ErrUnsupported }

// WriteFile fails: see the package doc.
func WriteFile(*os.File, string, []byte, fs.FileMode) error { return ErrUnsupported }
