//go:build !unix

package artifact

import (
	"os"

	"github.com/odek-run/odek/internal/safepath"
)

func stat(*os.File) (fileStat, error) { return fileStat{}, safepath.ErrUnsupported }
