package session

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/llm"
)

// TestSessionMACKnownAnswer: a session file's MAC is HMAC-SHA256 under
// the install's key of the domain "odek.session/v1" and a NUL, then the
// file's bytes without the mac, computed here apart from the code: a key
// used without domain separation (the same HMAC could then be asked of it
// for another purpose) or over other bytes fails this test.
func TestSessionMACKnownAnswer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyPath := filepath.Join(dir, KeyFile)
	key := bytes.Repeat([]byte{0x5a}, 32)
	if err := os.WriteFile(keyPath, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewStore(Options{Dir: filepath.Join(dir, "sessions"), KeyPath: keyPath})
	sess, _, err := s.Create(New{Model: "m", Messages: []llm.Message{user("known answer")}})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.ID)
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const head = `{"mac":"`
	if !bytes.HasPrefix(file, []byte(head)) || len(file) < len(head)+64+2 {
		t.Fatalf("file does not start with a mac: %.80s", file)
	}
	got := string(file[len(head) : len(head)+64])
	unsigned := append([]byte("{"), file[len(head)+64+2:]...) // drop `"mac":"…",`
	unsigned = bytes.TrimSuffix(unsigned, []byte("\n"))
	h := hmac.New(sha256.New, key)
	h.Write([]byte("odek.session/v1\x00"))
	h.Write(unsigned)
	if want := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("mac %s, want HMAC-SHA256(key, domain || file without mac) = %s", got, want)
	}
	plain := hmac.New(sha256.New, key)
	plain.Write(unsigned)
	if got == hex.EncodeToString(plain.Sum(nil)) {
		t.Error("the mac is the key's HMAC of the bytes alone: no domain separation")
	}
}

// TestSessionKeyFile: a new key is 32 random bytes, written as 64 hex
// digits and a newline, 0600 in a directory made 0700; an existing key
// file is used only when it holds exactly that — a shorter key (16
// bytes, 31 bytes), a longer one, one without its newline's place or
// with more after it, are refused — and a FIFO, a socket's place or a
// device in the key's place is refused at once, not waited on.
func TestSessionKeyFile(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(home, KeyFile)
	key, err := loadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 65 || raw[64] != '\n' || hex.EncodeToString(key) != string(raw[:64]) || len(key) != 32 {
		t.Errorf("key file %q (key %x), want 64 hex digits of the 32-byte key and a newline", raw, key)
	}
	if fi, err := os.Stat(home); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the key's directory: %v %v, want 0700", fi.Mode().Perm(), err)
	}
	other, err := loadOrCreateKey(filepath.Join(t.TempDir(), KeyFile))
	if err != nil || bytes.Equal(other, key) || bytes.Equal(key, make([]byte, 32)) {
		t.Errorf("two installs' keys %x and %x (%v): want two random keys", key, other, err)
	}

	hexOf := func(n int) string { return strings.Repeat("ab", n) }
	for name, content := range map[string]string{
		"16 bytes": hexOf(16) + "\n", "31 bytes": hexOf(31) + "\n", "33 bytes": hexOf(33) + "\n",
		"odd digit": hexOf(32)[:63] + "\n", "trailing data": hexOf(32) + "\nxx", "two newlines": hexOf(32) + "\n\n",
		"empty": "",
	} {
		p := filepath.Join(t.TempDir(), KeyFile)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if k, err := loadOrCreateKey(p); !errors.As(err, new(*KeyError)) {
			t.Errorf("%s: key %x, err %v; want *KeyError", name, k, err)
		}
	}
	good := filepath.Join(t.TempDir(), KeyFile)
	if err := os.WriteFile(good, []byte(hexOf(32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := loadOrCreateKey(good); err != nil || hex.EncodeToString(k) != hexOf(32) {
		t.Errorf("a good key file: %x %v", k, err)
	}

	// A FIFO, with no writer (the read would wait for one) and with a
	// good key waiting in it (whoever feeds it chooses the key).
	for _, feed := range []bool{false, true} {
		fifo := filepath.Join(t.TempDir(), KeyFile)
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		var w *os.File
		if feed {
			if w, err = os.OpenFile(fifo, os.O_RDWR, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteString(hexOf(32) + "\n"); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() { _, err := loadOrCreateKey(fifo); done <- err }()
		select {
		case err := <-done:
			if !errors.As(err, new(*KeyError)) {
				t.Errorf("a FIFO (fed %v): %v, want *KeyError", feed, err)
			}
		case <-time.After(time.Minute):
			// The read waits for a writer, or for more than the key; a
			// writer that comes and goes ends it, so that the test fails
			// rather than hangs.
			if w == nil {
				w, _ = os.OpenFile(fifo, os.O_WRONLY, 0)
			}
			t.Errorf("a FIFO (fed %v) in the key's place blocked the read for a minute", feed)
		}
		if w != nil {
			w.Close()
		}
	}
	if _, err := loadOrCreateKey("/dev/zero"); !errors.As(err, new(*KeyError)) {
		t.Errorf("a device: %v, want *KeyError", err)
	}
}

// TestSignedSessionReadWithoutKey: a signed session read where no key is
// at hand (a store without KeyPath, Decode) cannot be verified: it loads
// unverified and tainted, never as tampered (which would lock the user out
// of a good file) and never as verified.
func TestSignedSessionReadWithoutKey(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, _, err := s.Create(New{Messages: []llm.Message{user("t")}})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.ID)
	data, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(data), `{"mac":"`) {
		t.Fatalf("the saved file is not signed: %v %.40s", err, data)
	}
	keyless := NewStore(Options{Dir: s.Dir()})
	fromStore, err := keyless.Load(sess.ID)
	if err != nil || !fromStore.Unverified() || !fromStore.Tainted {
		t.Errorf("a keyless store: err=%v, want it loaded unverified and tainted", err)
	}
	decoded, err := Decode(sess.ID, data)
	if err != nil || !decoded.Unverified() || !decoded.Tainted {
		t.Errorf("Decode: err=%v, want it unverified and tainted", err)
	}
}
