package cassette

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/redact"
)

// A number the operator registered as a secret (a PIN, an account number
// in secrets.env): the registry masks it in a text, and a recording must
// mask it where JSON holds it as a number.
const secretNumber = "918273645501928374"

// TestRecordingMasksEveryShape: what TestRecordingHoldsNoSecret's values
// do not reach — a message or argument that is not JSON, secrets used as
// two object keys at once, a registered secret held as a number — is
// masked in the stream file, and nothing is lost on the way: keys masked
// alike keep every value, under "[REDACTED]", "[REDACTED]#2", "#3"….
func TestRecordingMasksEveryShape(t *testing.T) {
	text, field := secretRedaction(t)
	redact.Register(secretNumber)
	const (
		ghp = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
		sk  = "sk-proj-0123456789abcdefghijklmnopqrstuv"
	)
	dir := filepath.Join(t.TempDir(), "cas")
	rec, err := Create(dir, RecordOptions{Redact: text, RedactField: field})
	if err != nil {
		t.Fatal(err)
	}
	tap, err := rec.MCPTap("srv")
	if err != nil {
		t.Fatal(err)
	}
	// A server that writes a line that is not JSON (a debug print, a
	// half-written message) with a token in it.
	tap.Received([]byte("DEBUG token=" + ghp + " " + secretLiteral))
	tap.Received([]byte(`{"jsonrpc":"2.0","id":1,"result":{"keys":{"` + secretLiteral + `":"zeroth","` + ghp + `":"first","` + sk + `":"second"},"n":` + secretNumber + `,"count":42}}`))
	if err := rec.RecordTool("shell", []byte("not json "+sk), "", nil); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"mcp-srv.jsonl", "tool-shell.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{ghp, sk, secretLiteral, secretNumber} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q:\n%s", f, s, b)
			}
		}
	}
	// Read as lines: the reader refuses a message that is not an object,
	// which is what the first one was.
	b, err := os.ReadFile(filepath.Join(dir, "mcp-srv.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []MCPEntry
	for l := range bytes.Lines(b) {
		var e MCPEntry
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		entries = append(entries, e)
	}
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2", len(entries))
	}
	var line string
	if err := json.Unmarshal(entries[0].Msg, &line); err != nil || !strings.HasPrefix(line, "DEBUG token=") {
		t.Errorf("the line that is not JSON is recorded as %s (%v), want it as a masked JSON string", entries[0].Msg, err)
	}
	var msg struct {
		Result struct {
			Keys  map[string]string `json:"keys"`
			N     any               `json:"n"`
			Count json.Number       `json:"count"`
		} `json:"result"`
	}
	dec := json.NewDecoder(bytes.NewReader(entries[1].Msg))
	dec.UseNumber()
	if err := dec.Decode(&msg); err != nil {
		t.Fatal(err)
	}
	// Sorted, the keys are the literal, ghp_…, sk-…: numbered in that order.
	if want := map[string]string{redact.Mask: "zeroth", redact.Mask + "#2": "first", redact.Mask + "#3": "second"}; !equalMaps(msg.Result.Keys, want) {
		t.Errorf("three secret keys recorded as %v, want %v", msg.Result.Keys, want)
	}
	if msg.Result.N != redact.Mask {
		t.Errorf("the registered number is recorded as %v, want %q", msg.Result.N, redact.Mask)
	}
	if msg.Result.Count != "42" {
		t.Errorf("a plain count is recorded as %q, want it kept as the number 42", msg.Result.Count)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestRecordDirMode: a cassette's directory is 0700 whether Create makes
// it or records over an old cassette whose directory was opened up (a
// checkout's umask, a chmod to share it): a re-recording writes secrets'
// neighbours there again.
func TestRecordDirMode(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	for i := range 2 {
		rec, err := Create(dir, RecordOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.RecordTool("shell", []byte(`{}`), "out", nil); err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("recording %d: the directory is %v, want 0700", i+1, fi.Mode().Perm())
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAttachRefusesStreamNames: a sub-agent's stream name comes from its
// parent's wire; one that is not a plain name ("x/../../y", "..", empty)
// is refused before anything is written, so no recording lands outside
// the cassette.
func TestAttachRefusesStreamNames(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"x/../../escaped", "../escaped", "..", ".hidden", "", "a\x00b", strings.Repeat("a", 129)} {
		t.Run(prefix, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := filepath.Join(root, "cas", "inner")
			if _, err := Create(dir, RecordOptions{}); err != nil {
				t.Fatal(err)
			}
			rec, err := Attach(dir, prefix, RecordOptions{})
			if err == nil {
				_ = rec.RecordTool("shell", []byte(`{}`), "out", nil)
				_ = rec.Close()
				t.Errorf("Attach(%q) was not refused", prefix)
			}
			_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && filepath.Dir(p) != dir {
					t.Errorf("a recording landed outside the cassette: %s", p)
				}
				return nil
			})
		})
	}
}

// TestCreateInEmptyDir: --record into a directory that exists and is
// empty (made by the CI job beforehand) records there; one that holds
// anything but a cassette is refused and keeps its files.
func TestCreateInEmptyDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Create(dir, RecordOptions{}); err != nil {
		t.Errorf("an empty directory: %v", err)
	}
	other := t.TempDir()
	keep := filepath.Join(other, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(other, RecordOptions{}); err == nil || !strings.Contains(err.Error(), "refusing to record over it") {
		t.Errorf("a directory holding a file: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(keep); string(b) != "mine" {
		t.Errorf("the file now holds %q", b)
	}
}
