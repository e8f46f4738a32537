package wire

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestKeyFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	f, err := KeyFile(dir, "sk-test-123\n")
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("key file left a name on disk: %v", ents)
	}
	key, err := ReadKeyFD("3", func(uintptr) *os.File { return f })
	if err != nil || key != "sk-test-123" {
		t.Fatalf("key %q, err %v", key, err)
	}
	if _, err := f.Stat(); err == nil {
		t.Fatal("ReadKeyFD left the descriptor open")
	}
}

func TestReadKeyFDErrors(t *testing.T) {
	empty, _ := KeyFile(t.TempDir(), "")
	big, _ := KeyFile(t.TempDir(), strings.Repeat("k", maxKeyBytes+1))
	tests := []struct {
		value string
		f     *os.File
		want  string
	}{
		{"4", nil, `api key handover: ODEK_API_KEY_FD="4": only descriptor 3 is supported`},
		{"3", nil, "api key handover: descriptor 3 is not open"},
		{"3", empty, "api key handover: descriptor 3 holds no key"},
		{"3", big, "api key handover: descriptor 3 holds more than 65536 bytes"},
	}
	for _, tc := range tests {
		_, err := ReadKeyFD(tc.value, func(uintptr) *os.File { return tc.f })
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrKeyFD) {
			t.Errorf("ReadKeyFD(%q) = %v, want %q", tc.value, err, tc.want)
		}
	}
}
