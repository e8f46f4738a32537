package wire

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// NewTaskID returns "task-" and 16 random lowercase hex digits.
func NewTaskID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it aborts the program instead)
	return "task-" + hex.EncodeToString(b[:])
}

// IsTaskID reports whether id has the form NewTaskID produces.
func IsTaskID(id string) bool {
	rest, ok := strings.CutPrefix(id, "task-")
	return ok && isLowerHex(rest, 16)
}

// GoalHash is what events carry instead of a goal: the hex of the first 8
// bytes of its SHA-256 (16 hex digits).
func GoalHash(goal string) string {
	sum := sha256.Sum256([]byte(goal))
	return hex.EncodeToString(sum[:8])
}

// ParseDepth reads ODEK_SUBAGENT_DEPTH: anything but a non-negative integer
// is depth 0, the top-level run.
func ParseDepth(v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// IsRunID reports whether id has the form of an odek.event/v1 run id: 32
// lowercase hex digits.
func IsRunID(id string) bool { return isLowerHex(id, 32) }
