//go:build !unix

package builtin

import (
	"bytes"
	"io"
	"os"

	"github.com/odek-run/odek/internal/safepath"
)

// readText reads the file rel below root for search_files; false for
// binaries, files over the cap, files it cannot read and files check (nil:
// none) refuses once opened.
func readText(root *os.File, rel string, buf []byte, check func(fd int, rel string) bool) ([]byte, []byte, bool) {
	f, err := safepath.OpenBeneath(root, rel, safepath.FileFlags)
	if err != nil {
		return nil, buf, false
	}
	defer f.Close()
	if check != nil && !check(int(f.Fd()), rel) {
		return nil, buf, false
	}
	data, ok := readOpenText(f)
	return data, buf, ok
}

// readOpenText is readText of a file already open.
func readOpenText(f *os.File) ([]byte, bool) {
	data, err := io.ReadAll(io.LimitReader(f, MaxSearchFile+1))
	if err != nil || len(data) > MaxSearchFile || bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0 {
		return nil, false
	}
	return data, true
}
