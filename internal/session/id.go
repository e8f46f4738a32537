package session

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// idLen is len("YYYYMMDD-") + 32 hex digits.
const idLen = 9 + 32

// NewID returns a fresh id: the UTC date and 16 random bytes, YYYYMMDD-<32 hex>.
func NewID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return now.UTC().Format("20060102") + "-" + hex.EncodeToString(b[:])
}

// ValidID checks id before any use in a path. It names the first thing wrong:
// traversal and separators explicitly, anything else against the format.
func ValidID(id string) error {
	bad := func(reason string) error { return &InvalidIDError{ID: id, Reason: reason} }
	switch {
	case id == "":
		return bad("the id is empty")
	case id == "." || id == ".." || strings.Contains(id, ".."):
		return bad(`".." and "." are not session ids`)
	case strings.ContainsAny(id, `/\`):
		return bad("an id contains no path separator")
	case strings.ContainsRune(id, 0):
		return bad("an id contains no NUL byte")
	case len(id) != idLen || id[8] != '-' || !allIn(id[:8], "0123456789") || !allIn(id[9:], "0123456789abcdef"):
		return bad("want YYYYMMDD-<32 lowercase hex digits>, as odek session list shows")
	}
	return nil
}

func allIn(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(chars, s[i]) < 0 {
			return false
		}
	}
	return true
}

// newToken returns 32 hex characters for the session's auth_token field.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
