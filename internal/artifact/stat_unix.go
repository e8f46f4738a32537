//go:build unix

package artifact

import (
	"errors"
	"os"
	"syscall"
)

// stat describes an open file: what the checks between reads compare.
func stat(f *os.File) (fileStat, error) {
	info, err := f.Stat()
	if err != nil {
		return fileStat{}, err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}, errors.New("no inode information")
	}
	return fileStat{
		mode: info.Mode(), size: info.Size(),
		// The field widths differ across platforms, hence the conversions.
		id: fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nlink: uint64(st.Nlink),
	}, nil
}
