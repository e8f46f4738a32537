package artifact

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

// Verified is a ref that passed Validate: Path is the file inside an
// artifact root (reached without following any symlink), Size and SHA256 are
// measured from the file itself. Path is for odek's own use (the Store); it
// must never be shown to the model.
type Verified struct {
	Ref    Ref
	Path   string
	Size   int64
	SHA256 string

	loc location // how the Store reaches the same file again
}

// Validate checks ref against the contract and the artifact roots, failing
// closed on every doubt. The ref's path is resolved below the root it names
// and opened without following a symlink at any component (openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS on Linux, a component walk from the
// root's descriptor elsewhere), so a directory swapped for a symlink while
// odek validates is refused, not followed. Type, link count, size and hash
// are then measured on that descriptor, never on the path again. The file
// is hashed streaming, never read whole into memory. The returned error is a
// *RefError.
func Validate(ref Ref, roots []string) (*Verified, error) { return validate(ref, roots, "") }

// validate is Validate with only the roots that resolve inside within
// ("": every root).
func validate(ref Ref, roots []string, within string) (*Verified, error) {
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
	loc, err := locate(ref, path, roots, within)
	if err != nil {
		return nil, err
	}
	f, err := loc.open()
	if err != nil {
		return nil, openRefErr(ref, err)
	}
	defer f.Close()
	return measure(ref, f, loc)
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

// locate finds the root path lies in, comparing whole path elements with
// the root as configured and with the root's symlinks resolved (a root may
// itself be a symlink the operator chose; nothing below it may be). Blank,
// relative or unresolvable roots confine nothing, nor, when within is set,
// a root that does not resolve inside within's resolved tree. The file is
// then opened from the resolved root without following a symlink, so a
// root swapped for a symlink after this check is refused, not followed.
func locate(ref Ref, path string, roots []string, within string) (location, error) {
	usable, outside := false, 0
	inside := func(string) bool { return true }
	if within != "" {
		w, ok := resolveRoot(within)
		inside = func(r string) bool { _, in := below(r, w); return ok && in }
	}
	for _, root := range roots {
		resolved, ok := resolveRoot(root)
		if !ok {
			continue
		}
		if !inside(resolved) {
			outside++
			continue
		}
		usable = true
		for _, r := range []string{filepath.Clean(root), resolved} {
			if rel, ok := below(path, r); ok {
				return location{root: resolved, rel: rel}, nil
			}
		}
	}
	if !usable && outside > 0 {
		return location{}, refErr(ref, "%d of the %d configured artifact_roots resolve outside the server's project directory, where a project server's roots must lie", outside, len(roots))
	}
	if !usable {
		return location{}, refErr(ref, "none of the %d configured artifact_roots is an existing absolute directory", len(roots))
	}
	return location{}, refErr(ref, "resolved path lies outside every configured artifact root")
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

// below returns path relative to root ("." for root itself) when path equals
// root or lies below it, comparing whole path elements so "/a/bc" is not
// inside "/a/b". Both are clean and absolute.
func below(path, root string) (string, bool) {
	if path == root {
		return ".", true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	rel, ok := strings.CutPrefix(path, root)
	return rel, ok
}

// openRefErr says why the file could not be opened, without naming it.
func openRefErr(ref Ref, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refErr(ref, "file not found")
	case errors.Is(err, errSymlinkInPath):
		return refErr(ref, "path goes through a symlink (symlinks are never followed below an artifact root)")
	case errors.Is(err, errNotDirInPath):
		return refErr(ref, "a component of the path is not a directory")
	case errors.Is(err, errEscapesRoot):
		return refErr(ref, "path leaves the artifact root")
	}
	return refErr(ref, "file cannot be opened")
}

// measure checks type, link count, size and hash on the open descriptor.
func measure(ref Ref, f *os.File, loc location) (*Verified, error) {
	st, err := stat(f)
	if err != nil {
		return nil, refErr(ref, "file cannot be inspected")
	}
	if !st.mode.IsRegular() {
		return nil, refErr(ref, "not a regular file (%s)", fileKind(st.mode))
	}
	if st.nlink != 1 {
		return nil, refErr(ref, "file has %d hard links; an artifact must have exactly one", st.nlink)
	}
	size := st.size
	if size > MaxArtifactBytes {
		return nil, refErr(ref, "file is %d bytes, exceeding the %d-byte artifact limit", size, MaxArtifactBytes)
	}
	if ref.SizeBytes != nil && *ref.SizeBytes != size {
		return nil, refErr(ref, "size_bytes %d does not match the file size %d", *ref.SizeBytes, size)
	}
	sum, _, err := scan(context.Background(), f, size, 0, 0)
	if errors.Is(err, errSizeChanged) {
		return nil, refErr(ref, "file changed while being verified (%v)", err)
	}
	if err != nil {
		return nil, refErr(ref, "file cannot be read")
	}
	if ref.SHA256 != "" && ref.SHA256 != sum {
		return nil, refErr(ref, "sha256 mismatch: ref says %s, file has %s", ref.SHA256, sum)
	}
	loc.id = st.id
	return &Verified{Ref: ref, Path: loc.path(), Size: size, SHA256: sum, loc: loc}, nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
