package childside

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/untrusted"
)

// StageDir is the workspace directory children stage artifacts in, one
// subdirectory per task id.
const StageDir = ".odek-artifacts"

// Collected is what CollectArtifacts moved and what it refused.
type Collected struct {
	Refs     []artifact.Ref
	Problems []string // "[artifact] …" lines for the summary
}

// CollectArtifacts moves the flat regular files a child staged in
// <workspace>/.odek-artifacts/<taskID>/ into root (the task's artifact
// directory), measures each one there and returns odek.artifact-ref/v1 refs.
// Directories, symlinks, special files, bad names, files over the size limit
// and anything past artifact.MaxRefs are left out with a problem line. The
// staging directory is removed afterwards (and .odek-artifacts when empty).
func CollectArtifacts(workspace, taskID, root string) Collected {
	var c Collected
	if !wire.IsTaskID(taskID) {
		return c
	}
	stageParent := filepath.Join(workspace, StageDir)
	stage := filepath.Join(stageParent, taskID)
	info, err := os.Lstat(stage)
	if err != nil {
		return c // nothing staged
	}
	defer func() {
		_ = os.RemoveAll(stage) // RemoveAll never follows symlinks
		_ = os.Remove(stageParent)
	}()
	if !info.IsDir() {
		c.problem("staging path %s/%s is not a directory; nothing collected", StageDir, taskID)
		return c
	}
	if root == "" {
		c.problem("no artifact root was given; staged files discarded")
		return c
	}
	entries, err := os.ReadDir(stage)
	if err != nil {
		c.problem("staging directory cannot be read")
		return c
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	ids := map[string]bool{}
	for _, e := range entries {
		c.take(stage, root, e, ids)
	}
	return c
}

func (c *Collected) problem(format string, args ...any) {
	c.Problems = append(c.Problems, "[artifact] "+fmt.Sprintf(format, args...))
}

// take moves one staged entry.
func (c *Collected) take(stage, root string, e fs.DirEntry, ids map[string]bool) {
	name := e.Name()
	shown := untrusted.OneLine(name, 64)
	switch {
	case e.IsDir():
		c.problem("%q is a directory; nested files are discarded", shown)
		return
	case e.Type()&fs.ModeSymlink != 0:
		c.problem("%q is a symlink; discarded", shown)
		return
	case !e.Type().IsRegular():
		c.problem("%q is not a regular file; discarded", shown)
		return
	case !wire.IsName(name):
		c.problem("%q is not a valid artifact name (want ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$); discarded", shown)
		return
	case len(c.Refs) >= artifact.MaxRefs:
		c.problem("%q: more than %d artifacts; discarded", shown, artifact.MaxRefs)
		return
	}
	dst := filepath.Join(root, name)
	size, sum, err := moveFile(filepath.Join(stage, name), dst)
	if err != nil {
		_ = os.Remove(dst)
		c.problem("%q: %v; discarded", shown, err)
		return
	}
	id := strings.TrimSuffix(name, filepath.Ext(name))
	if id == "" || ids[id] {
		id = name // a second "report.*" keeps its full name
	}
	ids[id] = true
	c.Refs = append(c.Refs, artifact.Ref{
		Schema: artifact.SchemaArtifactRef, ID: id,
		URI:       (&url.URL{Scheme: "file", Path: dst}).String(),
		MediaType: mediaType(name, dst), SHA256: sum, SizeBytes: &size,
	})
}

// moveFile renames src to dst (copying across file systems), then measures
// dst through a descriptor that refuses symlinks, so the size and hash
// describe exactly the file the ref will name.
func moveFile(src, dst string) (int64, string, error) {
	if _, err := os.Lstat(dst); err == nil {
		return 0, "", errors.New("an artifact of that name already exists")
	}
	if err := os.Rename(src, dst); err != nil {
		if !errors.Is(err, syscall.EXDEV) {
			return 0, "", errors.New("cannot be moved")
		}
		if err := copyFile(src, dst); err != nil {
			return 0, "", err
		}
	}
	return measure(dst)
}

func copyFile(src, dst string) error {
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return errors.New("cannot be opened")
	}
	defer in.Close()
	if info, err := in.Stat(); err != nil || !info.Mode().IsRegular() {
		return errors.New("is not a regular file")
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return errors.New("cannot be created in the artifact root")
	}
	_, err = io.Copy(out, io.LimitReader(in, artifact.MaxArtifactBytes+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.New("cannot be copied")
	}
	return nil
}

// measure hashes a regular file without following a symlink.
func measure(path string) (int64, string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, "", errors.New("is not a plain file")
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return 0, "", errors.New("is not a regular file")
	}
	if info.Size() > artifact.MaxArtifactBytes {
		return 0, "", fmt.Errorf("is %d bytes, over the %d-byte artifact limit", info.Size(), artifact.MaxArtifactBytes)
	}
	_ = os.Chmod(path, 0o600)
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, artifact.MaxArtifactBytes+1))
	if err != nil || n != info.Size() {
		return 0, "", errors.New("changed while being measured")
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
