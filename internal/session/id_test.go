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
		{good[:len(good)-1], "YYYYMMDD-"},
		{good + "0", "YYYYMMDD-"},
		{strings.ToUpper(good), "YYYYMMDD-"},
		{"2026080X-0123456789abcdef0123456789abcdef", "YYYYMMDD-"},
		{"20260807_0123456789abcdef0123456789abcdef", "YYYYMMDD-"},
	} {
		err := ValidID(tc.id)
		var ie *InvalidIDError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidID(%q) = %v, want an InvalidIDError mentioning %q", tc.id, err, tc.want)
		}
	}
	if err := ValidID(good); err != nil {
		t.Errorf("ValidID(%q) = %v", good, err)
	}
}
