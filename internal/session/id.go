package session

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// NewID returns a fresh id: the UTC date and 16 random bytes, YYYYMMDD-<32 hex>.
func NewID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return now.UTC().Format("20060102") + "-" + hex.EncodeToString(b[:])
}

// MaxIDLen is the longest session id: one chosen with --session-id (a CI
// job's name and attempt, say) or odek's own, YYYYMMDD-<32 hex>.
const MaxIDLen = 128

// idChars are the characters an id may hold: a file name on every system,
// a word in a shell, a URL path segment, nothing to escape.
const idChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

// reservedID is the one name the sessions directory keeps for itself
// (index.json), in any case.
const reservedID = "index"

// ValidID checks id before any use in a path: 1 to MaxIDLen characters of
// [A-Za-z0-9._-], starting with a letter or digit, without "..", and not
// "index". odek's own ids (NewID) are of this kind. It names the first
// thing wrong: traversal and separators explicitly.
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
	case len(id) > MaxIDLen:
		return bad(fmt.Sprintf("an id is at most %d characters, this one has %d", MaxIDLen, len(id)))
	case !allIn(id, idChars):
		return bad("an id holds only letters, digits, '.', '_' and '-'")
	case !allIn(id[:1], idChars[:62]):
		return bad("an id starts with a letter or a digit")
	case strings.EqualFold(id, reservedID):
		return bad(`"index" is the name of the sessions index`)
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
