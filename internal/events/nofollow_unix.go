//go:build unix

package events

import "syscall"

// oNoFollow makes the open itself refuse a symlink.
const oNoFollow = syscall.O_NOFOLLOW
