package artifact

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

	"github.com/odek-run/odek/internal/untrusted"
)

// Verified is a ref that passed Validate: Path is the symlink-resolved file
// inside an artifact root, Size and SHA256 are measured from the file itself.
// Path is for odek's own use (the Store); it must never be shown to the model.
type Verified struct {
	Ref    Ref
	Path   string
	Size   int64
	SHA256 string
}

// Validate checks ref against the contract and the artifact roots, failing
// closed on every doubt. The returned error is a *RefError. The file is hashed
// streaming, never read whole into memory.
func Validate(ref Ref, roots []string) (*Verified, error) {
	if err := checkFields(ref); err != nil {
		return nil, err
	}
	if len(roots) == 0 {
		return nil, refErr(ref, "no artifact_roots are configured for this server, so every artifact ref is rejected")
	}
	path, err := uriPath(ref)
	if err != nil {
		return nil, err
	}
	resolved, err := resolveInRoots(ref, path, roots)
	if err != nil {
		return nil, err
	}
	return measure(ref, resolved)
}

// checkFields validates what can be checked without touching the disk.
func checkFields(ref Ref) error {
	switch {
	case ref.Schema != SchemaArtifactRef:
		return refErr(ref, "schema %q is not %q", untrusted.OneLine(ref.Schema, 64), SchemaArtifactRef)
	case ref.ID == "":
		return refErr(ref, "id is required")
	case ref.URI == "":
		return refErr(ref, "uri is required")
	case ref.MediaType == "":
		return refErr(ref, "media_type is required")
	case ref.SizeBytes != nil && *ref.SizeBytes < 0:
		return refErr(ref, "size_bytes %d is negative", *ref.SizeBytes)
	case ref.SHA256 != "" && !isLowerHex64(ref.SHA256):
		return refErr(ref, "sha256 must be exactly 64 lowercase hex characters (got %d characters)", len(ref.SHA256))
	}
	return nil
}

func isLowerHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// resolveInRoots evaluates symlinks in path and requires the result to lie in
// one of the roots, each itself symlink-resolved. Blank, relative or
// unresolvable roots confine nothing.
func resolveInRoots(ref Ref, path string, roots []string) (string, error) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", refErr(ref, "file not found")
		}
		return "", refErr(ref, "path cannot be resolved")
	}
	usable := 0
	for _, root := range roots {
		r, ok := resolveRoot(root)
		if !ok {
			continue
		}
		usable++
		if within(resolved, r) {
			return resolved, nil
		}
	}
	if usable == 0 {
		return "", refErr(ref, "none of the %d configured artifact_roots is an existing absolute directory", len(roots))
	}
	return "", refErr(ref, "resolved path lies outside every configured artifact root")
}

func resolveRoot(root string) (string, bool) {
	if strings.TrimSpace(root) == "" || !filepath.IsAbs(root) {
		return "", false
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	return r, true
}

// within reports whether path equals root or lies below it, comparing whole
// path elements so "/a/bc" is not inside "/a/b".
func within(path, root string) bool {
	if path == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(path, root)
}

// measure opens the resolved file without following a symlink swapped in
// after resolution, then checks type, size and hash on the open descriptor.
func measure(ref Ref, path string) (*Verified, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, refErr(ref, "file not found")
		}
		return nil, refErr(ref, "file cannot be opened")
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, refErr(ref, "file cannot be inspected")
	}
	if !info.Mode().IsRegular() {
		return nil, refErr(ref, "not a regular file (%s)", fileKind(info.Mode()))
	}
	size := info.Size()
	if size > MaxArtifactBytes {
		return nil, refErr(ref, "file is %d bytes, exceeding the %d-byte artifact limit", size, MaxArtifactBytes)
	}
	if ref.SizeBytes != nil && *ref.SizeBytes != size {
		return nil, refErr(ref, "size_bytes %d does not match the file size %d", *ref.SizeBytes, size)
	}
	sum, n, err := hashReader(f, MaxArtifactBytes+1)
	if err != nil {
		return nil, refErr(ref, "file cannot be read")
	}
	if n != size {
		return nil, refErr(ref, "file changed while being verified (%d bytes read, %d expected)", n, size)
	}
	if ref.SHA256 != "" && ref.SHA256 != sum {
		return nil, refErr(ref, "sha256 mismatch: ref says %s, file has %s", ref.SHA256, sum)
	}
	return &Verified{Ref: ref, Path: path, Size: size, SHA256: sum}, nil
}

// hashReader streams at most max bytes of r into SHA-256.
func hashReader(r io.Reader, max int64) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(r, max))
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
