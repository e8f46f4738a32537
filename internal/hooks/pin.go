package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// pin is a file a command hook's command line names inside the working
// directory, by its content when the run started. The model's own
// commands may write the workspace: a guard script there that changed
// during the run is someone else's code, and is not run.
type pin struct {
	path string // absolute
	sum  string // hex SHA-256; "" when it could not be read
}

// pins are the files inside dir that a command line's words name.
func pins(dir string, h Handler) []pin {
	if h.Type != TypeCommand || dir == "" {
		return nil
	}
	var out []pin
	seen := map[string]bool{}
	for _, w := range (Spec{Dir: dir, Handler: h}).Words() {
		for _, cand := range []string{w, afterEquals(w)} {
			p, ok := inside(dir, cand)
			if !ok || seen[p] {
				continue
			}
			if sum, ok := fileSum(p); ok {
				seen[p] = true
				out = append(out, pin{path: p, sum: sum})
			}
		}
	}
	return out
}

func afterEquals(w string) string {
	_, v, _ := strings.Cut(w, "=")
	return v
}

// inside resolves p against dir and reports it when it lies below dir.
func inside(dir, p string) (string, bool) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(filepath.Clean(dir), p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return p, true
}

// fileSum hashes a regular file; ok is false for anything else (a
// directory, a missing file, a FIFO: never opened for reading blocked).
func fileSum(path string) (string, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", !os.IsNotExist(err) // unreadable still counts: it may become readable
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", true
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// changed names the first pinned file whose content is not what it was
// when the run started ("" when none).
func changed(ps []pin) string {
	for _, p := range ps {
		if sum, _ := fileSum(p.path); sum != p.sum {
			return p.path
		}
	}
	return ""
}

// tamperedError is a hook whose script changed during the run.
type tamperedError struct{ path string }

func (e *tamperedError) Error() string {
	return fmt.Sprintf("not run: %s changed since the run started (a command of the run may have written it)", e.path)
}
