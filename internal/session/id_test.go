package session

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNewIDIsValid(t *testing.T) {
	now := time.Date(2026, 1, 2, 23, 59, 0, 0, time.FixedZone("x", 3600*5))
	id := NewID(now)
	if err := ValidID(id); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "20260102-") {
		t.Errorf("id %q: want the UTC date first", id)
	}
	if NewID(now) == id {
		t.Error("two ids are equal")
	}
}

func TestValidIDRejects(t *testing.T) {
	good := "20260807-0123456789abcdef0123456789abcdef"
	for _, tc := range []struct{ id, want string }{
		{"", "empty"},
		{".", `".."`},
		{"..", `".."`},
		{"../x", `".."`},
		{"20260807-..0123456789abcdef0123456789abcd", `".."`},
		{"a/b", "path separator"},
		{`a\b`, "path separator"},
		{"/etc/passwd", "path separator"},
		{"x\x00y", "NUL"},
		{strings.Repeat("a", MaxIDLen+1), "at most 128 characters"},
		{"ci job 1", "only letters, digits"},
		{"ci:job", "only letters, digits"},
		{"héllo", "only letters, digits"},
		{"x\ny", "only letters, digits"},
		{"-rf", "starts with a letter or a digit"},
		{".hidden", "starts with a letter or a digit"},
		{"_x", "starts with a letter or a digit"},
		{"index", `"index" is the name of the sessions index`},
		{"INDEX", `"index" is the name of the sessions index`},
	} {
		err := ValidID(tc.id)
		var ie *InvalidIDError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidID(%q) = %v, want an InvalidIDError mentioning %q", tc.id, err, tc.want)
		}
	}
	for _, id := range []string{good, strings.ToUpper(good), "ci-pr-42-lint", "build.7_attempt-2", "1",
		strings.Repeat("a", MaxIDLen), "index2", "my-index"} {
		if err := ValidID(id); err != nil {
			t.Errorf("ValidID(%q) = %v", id, err)
		}
	}
}
