package approval

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/odek-run/odek/internal/mcpclient"
)

// FileDigest is one project file a server's command line names, by content.
type FileDigest struct {
	Path   string // relative to the project directory, slash-separated
	SHA256 string // hex; "unreadable" when the file exists but cannot be read
}

// BoundFiles returns the regular files inside dir that cfg's command and
// arguments name (a word itself, or the value after the first "=" of a word
// such as --script=./srv.py), sorted by path. A project server's spawn grant
// is bound to their content: a repository that edits ./srv.py after the
// operator approved "python3 ./srv.py" is asked about again. Words that name
// nothing, name a directory, or name something outside dir (after cleaning,
// before symlinks; a symlink inside dir is followed to what it names) are
// not bound. Reading is by content, so it costs one pass over each file.
func BoundFiles(dir string, cfg mcpclient.ServerConfig) []FileDigest {
	if dir == "" || cfg.URL != "" {
		return nil
	}
	return boundWords(dir, append([]string{cfg.Command}, cfg.Args...))
}

// boundWords are the regular files inside dir that words name, as
// BoundFiles finds them.
func boundWords(dir string, words []string) []FileDigest {
	seen := map[string]bool{}
	var out []FileDigest
	for _, w := range words {
		for _, cand := range candidates(w) {
			rel, ok := insideDir(dir, cand)
			if !ok || seen[rel] {
				continue
			}
			if sum, ok := digest(filepath.Join(dir, rel)); ok {
				seen[rel] = true
				out = append(out, FileDigest{Path: filepath.ToSlash(rel), SHA256: sum})
			}
		}
	}
	slices.SortFunc(out, func(a, b FileDigest) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

// candidates are the parts of one command-line word that may name a file.
func candidates(w string) []string {
	out := []string{w}
	if _, v, ok := strings.Cut(w, "="); ok {
		out = append(out, v)
	}
	return out
}

// insideDir resolves p against dir and reports its path relative to dir when
// it lies inside.
func insideDir(dir, p string) (string, bool) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// digest hashes a regular file. The open does not block on a FIFO, and the
// type is checked on the opened file, not on a path that could be swapped.
func digest(path string) (string, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if os.IsPermission(err) {
			return "unreadable", true
		}
		return "", false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable", true
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
