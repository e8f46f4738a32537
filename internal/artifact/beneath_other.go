//go:build !unix

package artifact

import (
	"errors"
	"os"
)

var errNoSafeOpen = errors.New("artifact files cannot be opened without following symlinks on this platform")

func openRoot(string) (*os.File, error)                   { return nil, errNoSafeOpen }
func openBeneath(*os.File, string, int) (*os.File, error) { return nil, errNoSafeOpen }
func stat(*os.File) (fileStat, error)                     { return fileStat{}, errNoSafeOpen }
func classifyOpenError(err error) error                   { return err }

const openFileFlags = os.O_RDONLY
