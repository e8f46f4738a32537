package session

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// KeyFile is the name of the per-install session key under $ODEK_HOME.
const KeyFile = "session.key"

// keyBytes is the size of the HMAC-SHA256 key.
const keyBytes = 32

// macDomain separates session MACs from any other use of the key.
const macDomain = "odek.session/v1\x00"

// keyring loads the per-install key on first use and keeps it for the
// store's life. The key lives only in its file and in memory: it is never
// part of a session.
type keyring struct {
	path string
	once sync.Once
	key  []byte
	err  error
}

func (k *keyring) get() ([]byte, error) {
	k.once.Do(func() { k.key, k.err = loadOrCreateKey(k.path) })
	return k.key, k.err
}

// loadOrCreateKey reads the key file, creating it (0600, the directory
// 0700) when it does not exist. Creation is atomic and never replaces a key
// another process made first: the whole file is written under a temp name
// and hard-linked into place, which fails if the name exists.
func loadOrCreateKey(path string) ([]byte, error) {
	key, err := readKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("session key: %w", err)
	}
	raw := make([]byte, keyBytes)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("session key: %w", err)
	}
	if err := linkNewFile(path, []byte(hex.EncodeToString(raw)+"\n")); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("session key: %w", err)
	}
	return readKey(path) // ours, or the one a concurrent first run linked first
}

// linkNewFile writes data to a temp file beside path, fsyncs it and links
// it to path; it fails with fs.ErrExist when path exists.
func linkNewFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Link(f.Name(), path)
}

// readKey reads an existing key file: a regular file (not followed if a
// symlink), private to its owner, holding 64 hex digits. O_NONBLOCK: a
// FIFO in the key's place is refused below, not waited on for a writer.
func readKey(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, &KeyError{Path: path, Reason: err.Error()}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &KeyError{Path: path, Reason: err.Error()}
	}
	if !st.Mode().IsRegular() {
		return nil, &KeyError{Path: path, Reason: "not a regular file"}
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, &KeyError{Path: path, Reason: fmt.Sprintf("mode %04o lets others read it; chmod 600 it", st.Mode().Perm())}
	}
	data, err := io.ReadAll(io.LimitReader(f, 2*keyBytes+2))
	if err != nil {
		return nil, &KeyError{Path: path, Reason: err.Error()}
	}
	key, err := hex.DecodeString(string(bytes.TrimSuffix(data, []byte("\n"))))
	if err != nil || len(key) != keyBytes {
		return nil, &KeyError{Path: path, Reason: fmt.Sprintf("want %d hex digits and a newline", 2*keyBytes)}
	}
	return key, nil
}

// mac is the hex HMAC-SHA256 of a session file's bytes without its mac.
func mac(key, unsigned []byte) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(macDomain))
	h.Write(unsigned)
	return hex.EncodeToString(h.Sum(nil))
}

// sign puts the MAC of data (a session encoded with an empty MAC, which
// json omits) into it as its first field, exactly as encoding the session
// with that MAC would: the Session's first field is MAC.
func sign(key, data []byte) ([]byte, string) {
	m := mac(key, data)
	out := make([]byte, 0, len(data)+len(m)+9)
	out = append(out, `{"mac":"`...)
	out = append(out, m...)
	out = append(out, '"')
	if len(data) > 2 { // more than "{}"
		out = append(out, ',')
	}
	return append(out, data[1:]...), m
}

// verify checks sess (just decoded) against its MAC: the session is
// encoded again without the MAC and the MAC recomputed, so what is checked
// is exactly what the program will use, however the file spelled it. A
// session without a MAC (written before odek signed sessions) or read
// without a key is unverified and becomes tainted; a wrong MAC is a
// *TamperedError.
func verify(sess *Session, key []byte) error {
	got := sess.MAC
	sess.MAC = ""
	if got == "" || key == nil {
		sess.unverified, sess.Tainted = true, true
		return nil
	}
	data, err := json.Marshal(sess)
	if err != nil {
		return fmt.Errorf("session %s: %w", sess.ID, err)
	}
	if !hmac.Equal([]byte(mac(key, data)), []byte(got)) {
		return &TamperedError{ID: sess.ID}
	}
	return nil
}
