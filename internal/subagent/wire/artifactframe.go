package wire

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"syscall"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/untrusted"
)

// The artifact frame (docs/SCALE.md): a child whose stdout is all that
// comes back (a pod's log) sends its artifacts after its result line as a
// tar archive, base64 in lines between a header and an end line:
//
//	{"type":"artifacts","task_id":"task-…","bytes":N,"sha256":"<hex of the tar>"}
//	<base64 of the tar, at most frameChunkBytes decoded bytes per line>
//	{"type":"artifacts_end","task_id":"task-…"}
//
// The frame's lines count against the stream's caps like any other, which
// bound the archive: no new limit.
const (
	LineArtifacts    = "artifacts"
	LineArtifactsEnd = "artifacts_end"
	// frameChunkBytes is the decoded size of one base64 line: 64 KiB of
	// text, far below a line's cap, and few lines against the line count.
	frameChunkBytes = 48 << 10
)

// frameHeader is the frame's first line.
type frameHeader struct {
	Type   string `json:"type"`
	TaskID string `json:"task_id,omitempty"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// WriteArtifactFrame writes the frame of the artifacts refs name, read from
// root (the child's artifact root) by their base names without following a
// symlink; a file that is not a regular file in root is left out (the
// parent then drops its ref). Nothing is written without refs.
func WriteArtifactFrame(w io.Writer, taskID, root string, refs []artifact.Ref) error {
	if len(refs) == 0 {
		return nil
	}
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	for _, ref := range refs {
		if err := addToTar(tw, root, ref); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	data := archive.Bytes()
	sum := sha256.Sum256(data)
	hdr, _ := json.Marshal(frameHeader{Type: LineArtifacts, TaskID: taskID, Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
	out := append(hdr, '\n')
	for len(data) > 0 {
		n := min(len(data), frameChunkBytes)
		out = base64.StdEncoding.AppendEncode(out, data[:n])
		out = append(out, '\n')
		data = data[n:]
	}
	end, _ := json.Marshal(struct {
		Type   string `json:"type"`
		TaskID string `json:"task_id,omitempty"`
	}{LineArtifactsEnd, taskID})
	out = append(append(out, end...), '\n')
	_, err := w.Write(out)
	return err
}

func addToTar(tw *tar.Writer, root string, ref artifact.Ref) error {
	u, err := url.Parse(ref.URI)
	if err != nil || u.Scheme != "file" || path.Dir(u.Path) != filepath.ToSlash(filepath.Clean(root)) {
		return nil
	}
	name := path.Base(u.Path)
	if !IsName(name) {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(root, name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > artifact.MaxArtifactBytes {
		return nil
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o600, Size: info.Size(), Format: tar.FormatPAX}); err != nil {
		return err
	}
	_, err = io.Copy(tw, io.LimitReader(f, info.Size()))
	return err
}

// FrameReader takes a stream's lines one by one and keeps the artifact
// frame among them. Its input is untrusted: any doubt about the frame (a
// second header, a line that is not base64, more bytes than announced, a
// hash mismatch, a frame that never ends) is an error and no archive.
type FrameReader struct {
	hdr   *frameHeader
	data  bytes.Buffer
	done  bool
	limit int64 // the largest archive a header may announce
}

// NewFrameReader reads frames of at most limit bytes of archive (the
// stream's byte cap: the archive's base64 is part of the stream).
func NewFrameReader(limit int64) *FrameReader { return &FrameReader{limit: limit} }

// Line offers one line (with or without its newline). It reports whether
// the line belonged to the frame, and the frame's error, if any: once
// there has been one, the frame is refused.
func (f *FrameReader) Line(line []byte) (bool, error) {
	line = bytes.TrimRight(line, "\r\n")
	if f.hdr == nil || f.done {
		h := probeFrame(line)
		switch {
		case h == nil:
			return false, nil
		case f.done || h.Type != LineArtifacts:
			return true, errors.New("artifact frame: a frame line outside the frame")
		}
		if h.Bytes < 0 || h.Bytes > f.limit {
			return true, fmt.Errorf("artifact frame: %d bytes announced, the limit is %d", h.Bytes, f.limit)
		}
		if b, err := hex.DecodeString(h.SHA256); err != nil || len(b) != sha256.Size {
			return true, errors.New("artifact frame: the header's sha256 is not a SHA-256 in hex")
		}
		f.hdr = h
		return true, nil
	}
	if h := probeFrame(line); h != nil {
		if h.Type != LineArtifactsEnd {
			return true, errors.New("artifact frame: a second header inside the frame")
		}
		return true, f.finish()
	}
	if !isBase64(line) {
		// Not the archive's: on a pod's log the child's stderr shares the
		// stream. Missing bytes still fail the frame at its end.
		return false, nil
	}
	chunk, err := base64.StdEncoding.AppendDecode(nil, line)
	if err != nil || len(chunk) > frameChunkBytes {
		return true, errors.New("artifact frame: a line of the archive is not base64 of at most one chunk")
	}
	if int64(f.data.Len()+len(chunk)) > f.hdr.Bytes {
		return true, fmt.Errorf("artifact frame: more than the %d bytes announced", f.hdr.Bytes)
	}
	f.data.Write(chunk)
	return true, nil
}

func (f *FrameReader) finish() error {
	f.done = true
	if int64(f.data.Len()) != f.hdr.Bytes {
		return fmt.Errorf("artifact frame: %d bytes received, %d announced", f.data.Len(), f.hdr.Bytes)
	}
	sum := sha256.Sum256(f.data.Bytes())
	if hex.EncodeToString(sum[:]) != f.hdr.SHA256 {
		return errors.New("artifact frame: the archive does not match its sha256")
	}
	return nil
}

// Archive is the frame's tar archive once the frame ended whole; nil
// before, or when there was none.
func (f *FrameReader) Archive() []byte {
	if !f.done {
		return nil
	}
	return f.data.Bytes()
}

// Open reports a frame that started and never ended.
func (f *FrameReader) Open() bool { return f.hdr != nil && !f.done }

// isBase64 reports whether line is made of the standard base64 alphabet
// (and its padding) only.
func isBase64(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	for _, c := range line {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// probeFrame is the header or end line line is, else nil.
func probeFrame(line []byte) *frameHeader {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return nil
	}
	var h frameHeader
	if json.Unmarshal(line, &h) != nil || (h.Type != LineArtifacts && h.Type != LineArtifactsEnd) {
		return nil
	}
	return &h
}

// ExtractArtifacts writes the regular files of a frame's archive into dst
// (the task's artifact root on the parent's side), all or nothing: an entry
// that is not a regular file, a name that is not a flat artifact name
// (IsName), a repeated name, a file over artifact.MaxArtifactBytes, more
// than artifact.MaxRefs files, or a name already in dst refuses the whole
// archive and removes what was written. It returns the names written. The
// refs are then validated as a local child's are.
func ExtractArtifacts(archive []byte, dst string) (names []string, err error) {
	defer func() {
		if err != nil {
			for _, n := range names {
				_ = os.Remove(filepath.Join(dst, n))
			}
			names = nil
		}
	}()
	tr := tar.NewReader(bytes.NewReader(archive))
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names, nil
		}
		if err != nil {
			return names, fmt.Errorf("artifact archive: %w", err)
		}
		if err := checkEntry(h, seen); err != nil {
			return names, err
		}
		seen[h.Name] = true
		if err := writeEntry(tr, h, dst); err != nil {
			return names, err
		}
		names = append(names, h.Name)
	}
}

func checkEntry(h *tar.Header, seen map[string]bool) error {
	switch {
	case h.Typeflag != tar.TypeReg:
		return fmt.Errorf("artifact archive: %q is not a regular file", untrusted.OneLine(h.Name, 64))
	case !IsName(h.Name):
		return fmt.Errorf("artifact archive: %q is not a valid artifact name", untrusted.OneLine(h.Name, 64))
	case seen[h.Name]:
		return fmt.Errorf("artifact archive: %q twice", h.Name)
	case len(seen) >= artifact.MaxRefs:
		return fmt.Errorf("artifact archive: more than %d files", artifact.MaxRefs)
	case h.Size < 0 || h.Size > artifact.MaxArtifactBytes:
		return fmt.Errorf("artifact archive: %q is %d bytes, over the %d-byte artifact limit", h.Name, h.Size, artifact.MaxArtifactBytes)
	}
	return nil
}

func writeEntry(tr *tar.Reader, h *tar.Header, dst string) error {
	out, err := os.OpenFile(filepath.Join(dst, h.Name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("artifact archive: %q cannot be created in the artifact root", h.Name)
	}
	n, err := io.Copy(out, io.LimitReader(tr, h.Size))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil || n != h.Size {
		_ = os.Remove(filepath.Join(dst, h.Name))
		return fmt.Errorf("artifact archive: %q cannot be written", h.Name)
	}
	return nil
}

// RebaseRefs points the refs of files in the directory from (the child's
// artifact root) at the same names in to (the parent's), for the names
// extracted there; any other ref is left as it is, and the parent's
// validation against its own root then drops it.
func RebaseRefs(refs []artifact.Ref, from, to string, extracted []string) []artifact.Ref {
	have := map[string]bool{}
	for _, n := range extracted {
		have[n] = true
	}
	out := make([]artifact.Ref, len(refs))
	for i, ref := range refs {
		out[i] = ref
		u, err := url.Parse(ref.URI)
		if err != nil || u.Scheme != "file" || path.Dir(u.Path) != filepath.ToSlash(filepath.Clean(from)) || !have[path.Base(u.Path)] {
			continue
		}
		out[i].URI = (&url.URL{Scheme: "file", Path: filepath.Join(to, path.Base(u.Path))}).String()
	}
	return out
}
