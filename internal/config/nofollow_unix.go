//go:build unix

package config

import "syscall"

// oNoFollow makes the open fail on a symlink swapped in after the Lstat.
const oNoFollow = syscall.O_NOFOLLOW
