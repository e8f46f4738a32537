package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxFileBytes caps every file Load reads: config.json, odek.json and
// secrets.env. A larger file is a setup error rather than a slow start.
const MaxFileBytes = 5 << 20

// readLimited reads a regular file of at most MaxFileBytes. It stats first so
// that a FIFO or device planted under a config name is never opened.
func readLimited(path string) ([]byte, bool, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &SetupError{Msg: fmt.Sprintf("config: %v", err), Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, false, setupErrorf("config: %s is not a regular file (mode %s)", path, fi.Mode())
	}
	if fi.Size() > MaxFileBytes {
		return nil, false, tooLarge(path, fi.Size())
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, false, &SetupError{Msg: fmt.Sprintf("config: %v", err), Err: err}
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if err != nil {
		return nil, false, &SetupError{Msg: fmt.Sprintf("config: read %s: %v", path, err), Err: err}
	}
	if len(data) > MaxFileBytes { // grew after the stat
		return nil, false, tooLarge(path, int64(len(data)))
	}
	return data, true, nil
}

func tooLarge(path string, size int64) error {
	return &SetupError{
		Msg: fmt.Sprintf("config: %s is %d bytes, over the %d-byte (5 MiB) limit", path, size, MaxFileBytes),
		Err: ErrFileTooLarge,
	}
}
