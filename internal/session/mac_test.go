package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/llm"
)

// The file's MAC covers what the program uses: any edit of a field it
// reads is refused, however the file spells it; reformatting is not an edit.
func TestLoadVerifiesMAC(t *testing.T) {
	s, _ := newTestStore(t)
	hist := append([]llm.Message{system("sys"), user("task")}, toolGroup("a", 1, "file text")...)
	sess, _, err := s.Create(New{Model: "m", Messages: hist})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.ID)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(orig, []byte(`{"mac":"`)) {
		t.Fatalf("file does not start with its mac: %.40s", orig)
	}
	got, err := s.Load(sess.ID)
	if err != nil || got.Unverified() || got.Tainted {
		t.Fatalf("own file: err=%v unverified=%v tainted=%v", err, got.Unverified(), got.Tainted)
	}
	edits := map[string]func(string) string{
		"tool renamed plan":       func(f string) string { return strings.ReplaceAll(f, `"name":"t"`, `"name":"plan"`) },
		"content changed":         func(f string) string { return strings.Replace(f, "file text", "file text!", 1) },
		"role changed":            func(f string) string { return strings.Replace(f, `"role":"tool"`, `"role":"user"`, 1) },
		"model changed":           func(f string) string { return strings.Replace(f, `"model":"m"`, `"model":"n"`, 1) },
		"duplicate key overrides": func(f string) string { return strings.TrimSuffix(f, "}") + `,"model":"evil"}` },
		"case-folded key":         func(f string) string { return strings.TrimSuffix(f, "}") + `,"Model":"evil"}` },
		"mac of another file":     func(f string) string { return `{"mac":"` + strings.Repeat("0", 64) + f[len(`{"mac":"`)+64:] },
	}
	for name, edit := range edits {
		if err := os.WriteFile(path, []byte(edit(string(orig))), 0o600); err != nil {
			t.Fatal(err)
		}
		var te *TamperedError
		if _, err := s.Load(sess.ID); !errors.As(err, &te) {
			t.Errorf("%s: Load err = %v, want *TamperedError", name, err)
		}
	}
	// Whitespace and key order are not content.
	spaced := strings.ReplaceAll(string(orig), `","`, `", "`)
	if err := os.WriteFile(path, []byte(spaced), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(sess.ID); err != nil {
		t.Errorf("reformatted file: %v", err)
	}
	// Another install's key does not verify it.
	other := NewStore(Options{Dir: s.Dir(), KeyPath: filepath.Join(t.TempDir(), KeyFile)})
	if _, err := other.Load(sess.ID); !errors.As(err, new(*TamperedError)) {
		t.Errorf("other key: %v", err)
	}
}

// A file from before sessions were signed still loads, unverified and
// tainted, and its next save keeps the taint under a MAC.
func TestUnsignedSessionLoadsTainted(t *testing.T) {
	s, _ := newTestStore(t)
	sess, _, err := s.Create(New{Messages: []llm.Message{user("t")}})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.ID)
	data, _ := os.ReadFile(path)
	legacy := `{` + string(data[len(`{"mac":"`)+64+2:])
	if err := os.WriteFile(path, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(sess.ID)
	if err != nil || !got.Unverified() || !got.Tainted {
		t.Fatalf("legacy file: err=%v unverified=%v tainted=%v", err, got != nil && got.Unverified(), got != nil && got.Tainted)
	}
	if _, err := s.Save(got); err != nil {
		t.Fatal(err)
	}
	again, err := s.Load(sess.ID)
	if err != nil || again.Unverified() || !again.Tainted {
		t.Fatalf("re-saved legacy file: err=%v unverified=%v tainted=%v", err, again.Unverified(), again.Tainted)
	}
}

// Without --id, a changed file is not skipped for an older one.
func TestNewestRefusesWhenAFileWasChanged(t *testing.T) {
	s, c := newTestStore(t)
	if _, _, err := s.Create(New{Messages: []llm.Message{user("old")}}); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(time.Minute)
	sess, _, err := s.Create(New{Messages: []llm.Message{user("new")}})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.ID)
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.Replace(data, []byte(`"new"`), []byte(`"NEW"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(s.Dir(), "index.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Newest(); !errors.As(err, new(*TamperedError)) {
		t.Errorf("Newest: %v, want *TamperedError", err)
	}
}

// The key is created 0600 once, even by concurrent first users, never
// appears in a session, and an unusable key file is refused.
func TestSessionKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "home", KeyFile)
	var wg sync.WaitGroup
	keys := make([][]byte, 8)
	errs := make([]error, 8)
	for i := range keys {
		wg.Go(func() { keys[i], errs[i] = loadOrCreateKey(path) })
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil || !bytes.Equal(keys[i], keys[0]) || len(keys[i]) != keyBytes {
			t.Fatalf("user %d: key %x, err %v; want the one key", i, keys[i], errs[i])
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "home", ".*tmp*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
	s := NewStore(Options{Dir: filepath.Join(dir, "home", "sessions"), KeyPath: path})
	sess, _, err := s.Create(New{Messages: []llm.Message{user("t")}})
	if err != nil {
		t.Fatal(err)
	}
	file, _ := s.Path(sess.ID)
	data, _ := os.ReadFile(file)
	hexKey, _ := os.ReadFile(path)
	if bytes.Contains(data, bytes.TrimSpace(hexKey)) {
		t.Error("the session file holds the key")
	}

	bad := map[string]func(p string) error{
		"group readable": func(p string) error { return os.WriteFile(p, append(bytes.Repeat([]byte("a"), 64), '\n'), 0o640) },
		"short":          func(p string) error { return os.WriteFile(p, []byte("abcd\n"), 0o600) },
		"not hex":        func(p string) error { return os.WriteFile(p, append(bytes.Repeat([]byte("z"), 64), '\n'), 0o600) },
		"symlink":        func(p string) error { return os.Symlink(path, p) },
		"directory":      func(p string) error { return os.Mkdir(p, 0o700) },
	}
	for name, write := range bad {
		p := filepath.Join(t.TempDir(), KeyFile)
		if err := write(p); err != nil {
			t.Fatal(err)
		}
		if _, err := loadOrCreateKey(p); !errors.As(err, new(*KeyError)) {
			t.Errorf("%s: err = %v, want *KeyError", name, err)
		}
		st := NewStore(Options{Dir: t.TempDir(), KeyPath: p})
		if _, _, err := st.Create(New{Messages: []llm.Message{user("t")}}); !errors.As(err, new(*KeyError)) {
			t.Errorf("%s: Create err = %v, want *KeyError", name, err)
		}
	}
}
