//go:build !unix

package builtin

import (
	"bytes"
	"os"
)

// readText reads a file for search_files; false for binaries, files over
// the cap and files it cannot read.
func readText(p string, buf []byte) ([]byte, []byte, bool) {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxSearchFile {
		return nil, buf, false
	}
	data, err := os.ReadFile(p)
	if err != nil || bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0 {
		return nil, buf, false
	}
	return data, buf, true
}
