package cassette

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlayToolLiveArgumentsNotJSON: a live call whose arguments are not
// JSON departs from a recording whose arguments are, and says why (not a
// field difference against nothing).
func TestPlayToolLiveArgumentsNotJSON(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	rec, err := Create(dir, RecordOptions{Redact: mask})
	if err != nil {
		t.Fatal(err)
	}
	_ = rec.RecordTool("shell", json.RawMessage(`{"command":"ls"}`), "a\n", nil)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := Open(dir, PlayOptions{Redact: mask})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.PlayTool("shell", json.RawMessage(`{"command":`))
	if !errors.Is(err, ErrToolDeparted) || !strings.Contains(err.Error(), "call 1 departs from the cassette: arguments are not JSON") {
		t.Fatalf("live arguments not JSON: %v", err)
	}
}
