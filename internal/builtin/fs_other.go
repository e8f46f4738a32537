//go:build !linux

package builtin

import "github.com/odek-run/odek/internal/safepath"

// parentFlags open the directory a path tool reads a file from.
const parentFlags = safepath.DirFlags
