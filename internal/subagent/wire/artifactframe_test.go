package wire

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/artifact"
)

// refIn is a ref to the file name in root, as the child's collection
// makes it.
func refIn(t *testing.T, root, name, body string) artifact.Ref {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	size := int64(len(body))
	return artifact.Ref{Schema: artifact.SchemaArtifactRef, ID: strings.TrimSuffix(name, filepath.Ext(name)),
		URI: (&url.URL{Scheme: "file", Path: p}).String(), MediaType: "text/plain", SHA256: hex.EncodeToString(sum[:]), SizeBytes: &size}
}

// feed offers every line of out to a reader and reports the lines it did
// not take and its first error.
func feed(fr *FrameReader, out []byte) (rest []string, err error) {
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if line == "" {
			continue
		}
		took, lerr := fr.Line([]byte(line))
		if lerr != nil && err == nil {
			err = lerr
		}
		if !took {
			rest = append(rest, line)
		}
	}
	return rest, err
}

// TestArtifactFrameRoundTrip: the child's artifacts cross a log as a frame
// and land in the parent's root, where the refs, rebased, pass the same
// fail-closed validation as a local child's.
func TestArtifactFrameRoundTrip(t *testing.T) {
	t.Parallel()
	childRoot, parentRoot := t.TempDir(), t.TempDir()
	big := strings.Repeat("x", 3*frameChunkBytes+17) // several base64 lines
	refs := []artifact.Ref{refIn(t, childRoot, "report.md", "# done\n"), refIn(t, childRoot, "data.bin", big)}
	var out bytes.Buffer
	out.WriteString(`{"type":"result","result":{"status":"success"}}` + "\n")
	if err := WriteArtifactFrame(&out, "task-0123456789abcdef", childRoot, refs); err != nil {
		t.Fatal(err)
	}
	fr := NewFrameReader(100 << 20)
	rest, err := feed(fr, out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 1 || ResultLine([]byte(rest[0])) == nil {
		t.Fatalf("lines outside the frame = %q, want the result line alone", rest)
	}
	names, err := ExtractArtifacts(fr.Archive(), parentRoot)
	if err != nil {
		t.Fatal(err)
	}
	moved := RebaseRefs(refs, childRoot, parentRoot, names)
	for _, ref := range moved {
		if _, err := artifact.Validate(ref, []string{parentRoot}); err != nil {
			t.Errorf("ref %s after the crossing: %v", ref.ID, err)
		}
	}
}

// tarOf builds an archive of the given entries.
func tarOf(t *testing.T, entries ...*tar.Header) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, h := range entries {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			_, _ = tw.Write(bytes.Repeat([]byte("a"), int(h.Size)))
		}
	}
	_ = tw.Close()
	return b.Bytes()
}

// TestExtractArtifactsRefuses: anything but flat regular files of valid
// names, within the count and size limits, refuses the archive whole.
func TestExtractArtifactsRefuses(t *testing.T) {
	t.Parallel()
	reg := func(name string, size int64) *tar.Header {
		return &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o600}
	}
	var many []*tar.Header
	for i := range artifact.MaxRefs + 1 {
		many = append(many, reg(fmt.Sprintf("f%d.txt", i), 1))
	}
	cases := []struct {
		name    string
		entries []*tar.Header
		want    string
	}{
		{"symlink", []*tar.Header{reg("ok.txt", 1), {Typeflag: tar.TypeSymlink, Name: "key", Linkname: "/root/.ssh/id_rsa"}}, "not a regular file"},
		{"hard link", []*tar.Header{{Typeflag: tar.TypeLink, Name: "key", Linkname: "ok.txt"}}, "not a regular file"},
		{"directory", []*tar.Header{{Typeflag: tar.TypeDir, Name: "d/", Mode: 0o700}}, "not a regular file"},
		{"dotdot", []*tar.Header{reg("../escape.txt", 1)}, "not a valid artifact name"},
		{"nested", []*tar.Header{reg("a/b.txt", 1)}, "not a valid artifact name"},
		{"absolute", []*tar.Header{reg("/etc/passwd", 1)}, "not a valid artifact name"},
		{"twice", []*tar.Header{reg("a.txt", 1), reg("a.txt", 2)}, "twice"},
		{"too many", many, "more than 64 files"},
		{"too big", []*tar.Header{reg("big.bin", artifact.MaxArtifactBytes+1)}, "over the"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dst := t.TempDir()
			var data []byte
			if c.name == "too big" { // only the header: the size alone refuses it
				var b bytes.Buffer
				tw := tar.NewWriter(&b)
				_ = tw.WriteHeader(c.entries[0])
				data = b.Bytes()
			} else {
				data = tarOf(t, c.entries...)
			}
			names, err := ExtractArtifacts(data, dst)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if left, _ := os.ReadDir(dst); len(left) != 0 || names != nil {
				t.Errorf("a refused archive left %d files (names %q)", len(left), names)
			}
		})
	}
}

// TestFrameReaderRefuses: a frame that is not exactly what its header
// announced gives no archive.
func TestFrameReaderRefuses(t *testing.T) {
	t.Parallel()
	data := []byte("hello")
	sum := sha256.Sum256(data)
	hdr := func(n int, s string) string {
		return fmt.Sprintf(`{"type":"artifacts","bytes":%d,"sha256":"%s"}`+"\n", n, s)
	}
	good := hex.EncodeToString(sum[:])
	b64 := base64.StdEncoding.EncodeToString(data) + "\n"
	end := `{"type":"artifacts_end"}` + "\n"
	cases := []struct{ name, in, want string }{
		{"hash mismatch", hdr(5, strings.Repeat("0", 64)) + b64 + end, "does not match"},
		{"short", hdr(6, good) + b64 + end, "5 bytes received, 6 announced"},
		{"long", hdr(4, good) + b64 + end, "more than the 4 bytes"},
		{"not base64", hdr(5, good) + "!!!!\n" + end, "0 bytes received, 5 announced"},
		{"bad padding", hdr(5, good) + "aGVsbG8\n" + end, "not base64"},
		{"second header", hdr(5, good) + hdr(5, good), "second header"},
		{"over the limit", hdr(1<<30, good), "the limit is"},
		{"bad sha", hdr(5, "xyz"), "not a SHA-256"},
		{"end first", end, "outside the frame"},
		{"two frames", hdr(5, good) + b64 + end + hdr(5, good), "outside the frame"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fr := NewFrameReader(1 << 20)
			_, err := feed(fr, []byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	fr := NewFrameReader(1 << 20)
	if _, err := feed(fr, []byte(hdr(5, good)+b64)); err != nil || !fr.Open() || fr.Archive() != nil {
		t.Errorf("an unterminated frame: err %v, open %v, archive %q", err, fr.Open(), fr.Archive())
	}
}

// FuzzArtifactFrame: the frame reader and the extraction take any bytes a
// pod's log may hold without panicking, and never write outside dst or
// anything but flat files of valid names.
func FuzzArtifactFrame(f *testing.F) {
	var seed bytes.Buffer
	dir := f.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hi"), 0o600)
	_ = WriteArtifactFrame(&seed, "task-0123456789abcdef", dir, []artifact.Ref{{URI: "file://" + filepath.Join(dir, "a.txt")}})
	f.Add(seed.Bytes())
	f.Add([]byte(`{"type":"artifacts","bytes":3,"sha256":"00"}` + "\nYWJj\n" + `{"type":"artifacts_end"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		fr := NewFrameReader(1 << 20)
		if _, err := feed(fr, in); err != nil || fr.Archive() == nil {
			return
		}
		dst := t.TempDir()
		names, err := ExtractArtifacts(fr.Archive(), dst)
		entries, _ := os.ReadDir(dst)
		if err != nil && len(entries) != 0 {
			t.Fatalf("a refused archive left %d files", len(entries))
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !IsName(e.Name()) {
				t.Fatalf("extracted %q (%v)", e.Name(), e.Type())
			}
		}
		if err == nil && len(names) != len(entries) {
			t.Fatalf("names %q, files %d", names, len(entries))
		}
	})
}
