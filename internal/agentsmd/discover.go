package agentsmd

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/reporoot"
)

// FileName is the name of a project instructions file.
const FileName = "AGENTS.md"

// DefaultMaxBytes is what the repository's files may give the model
// together, and the operator's file on its own (32 KiB, Codex's default).
const DefaultMaxBytes = 32 << 10

// Scopes: where a file comes from.
const (
	ScopeOperator   = "operator"   // $ODEK_HOME/AGENTS.md, the operator's own
	ScopeRepository = "repository" // a file between the repository root and the working directory
)

// Options say where to look.
type Options struct {
	// Dir is the working directory (absolute).
	Dir string
	// Home is the odek home ($ODEK_HOME or ~/.odek); "" reads no operator file.
	Home string
	// MaxBytes caps the text given to the model: the repository's files
	// together, and the operator's file on its own; <= 0 is DefaultMaxBytes.
	MaxBytes int
}

// File is one instructions file that was found, and what the model got of it.
type File struct {
	// Path is the file's absolute path, as found (symlinks not resolved).
	Path string `json:"path"`
	// Name is how the model sees it: the path relative to the repository
	// root for a repository file, "$ODEK_HOME/AGENTS.md" for the operator's.
	Name  string `json:"name"`
	Scope string `json:"scope"`
	// SHA256 is the hex SHA-256 of the bytes the model was given (the whole
	// file when it was not cut).
	SHA256 string `json:"sha256"`
	// Bytes is the file's size; Shown the bytes the model was given.
	Bytes int64 `json:"bytes"`
	Shown int   `json:"shown_bytes"`
	// Truncated: the file was cut (or left out: Shown is 0) at MaxBytes.
	Truncated bool `json:"truncated,omitempty"`
	// Text is what the model is given, valid UTF-8.
	Text string `json:"-"`
}

// Discover finds the instructions files, operator's first, then the
// repository's from its root down to o.Dir, and reads each within the
// caps. A file that cannot be read is skipped with a warning; a missing
// or empty file is simply not there. It never fails.
func Discover(o Options) ([]File, []string) {
	max := o.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	var files []File
	var warns []string
	seen := map[string]bool{}
	if o.Home != "" {
		path := filepath.Join(o.Home, FileName)
		f, w := readFile(path, "", max)
		warns = append(warns, w...)
		if f != nil {
			f.Name, f.Scope = "$ODEK_HOME/"+FileName, ScopeOperator
			files = append(files, *f)
			seen[realPath(path)] = true
		}
	}
	if o.Dir == "" {
		return files, warns
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return files, append(warns, skipped(o.Dir, err.Error()))
	}
	root, _ := reporoot.Find(dir) // dir itself outside a repository
	left := max
	for _, d := range reporoot.Chain(root, dir) {
		path := filepath.Join(d, FileName)
		if seen[realPath(path)] {
			continue
		}
		f, w := readFile(path, root, left)
		warns = append(warns, w...)
		if f == nil {
			continue
		}
		seen[realPath(path)] = true
		f.Name, f.Scope = repoName(root, path), ScopeRepository
		left -= f.Shown
		files = append(files, *f)
	}
	return files, warns
}

// readFile reads path, at most limit bytes of it; within, when set, is
// the directory the file must resolve inside. Nil for a file that is
// missing, empty or skipped (with a warning).
func readFile(path, within string, limit int) (*File, []string) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, []string{skipped(path, err.Error())}
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, []string{skipped(path, "a symlink that leads nowhere: "+err.Error())}
	}
	if within != "" && !inside(within, real) {
		return nil, []string{skipped(path, "it resolves to "+real+", outside the repository")}
	}
	// O_NOFOLLOW: the resolved name is not a symlink now, and must not be
	// one swapped in since; O_NONBLOCK: a FIFO must not block the open.
	fh, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, []string{skipped(path, err.Error())}
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, []string{skipped(path, err.Error())}
	}
	if !st.Mode().IsRegular() {
		return nil, []string{skipped(path, "not a regular file (mode "+st.Mode().String()+")")}
	}
	if st.Size() == 0 {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(fh, int64(max(limit, 0))+1))
	if err != nil {
		return nil, []string{skipped(path, err.Error())}
	}
	cut := len(data) > limit || st.Size() > int64(len(data))
	if len(data) > limit {
		data = cutAt(data, max(limit, 0))
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	if !cut && strings.TrimSpace(text) == "" {
		return nil, nil
	}
	sum := sha256.Sum256([]byte(text))
	return &File{Path: path, SHA256: hex.EncodeToString(sum[:]), Bytes: max(st.Size(), int64(len(data))),
		Shown: len(text), Truncated: cut, Text: text}, nil
}

// cutAt is data cut to at most n bytes: at the last line break in the last
// quarter, else before a rune the cut would split.
func cutAt(data []byte, n int) []byte {
	data = data[:n]
	if i := strings.LastIndexByte(string(data), '\n'); i >= 0 && i >= n-n/4 {
		return data[:i+1]
	}
	for k := 1; k <= utf8.UTFMax && k <= len(data); k++ {
		if i := len(data) - k; utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				return data[:i]
			}
			break
		}
	}
	return data
}

// inside reports whether real (symlinks resolved) is within dir.
func inside(dir, real string) bool {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, real)
	return err == nil && filepath.IsLocal(rel)
}

// realPath is path with symlinks resolved, or path when that fails.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// repoName is path relative to the repository root, slash-separated.
func repoName(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return FileName
}
