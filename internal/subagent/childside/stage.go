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

	"golang.org/x/sys/unix"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/safepath"
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
	if _, err := os.Lstat(stage); err != nil {
		return c // nothing staged
	}
	defer removeStage(workspace, taskID)
	// Everything below goes through a descriptor of the staging directory,
	// opened without following a symlink: a command still running (a
	// sibling's, a parent's, a project server) may swap the directory for
	// a symlink to ~/.ssh while the files are moved, and a rename by path
	// would then move the protected files into the artifacts.
	dir, err := openStage(workspace, taskID)
	if err != nil {
		c.problem("staging path %s/%s is not a directory; nothing collected", StageDir, taskID)
		return c
	}
	defer dir.Close()
	if root == "" {
		c.problem("no artifact root was given; staged files discarded")
		return c
	}
	rootDir, err := os.Open(root) // the parent made it, under odek's home
	if err != nil {
		c.problem("the artifact directory cannot be opened; staged files discarded")
		return c
	}
	defer rootDir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		c.problem("staging directory cannot be read")
		return c
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	ids := map[string]bool{}
	for _, e := range entries {
		c.take(dir, rootDir, root, e, ids)
	}
	return c
}

// removeStage removes the staging directory and .odek-artifacts when it
// is empty, within the workspace: a symlink in place of .odek-artifacts
// (aimed at odek's own artifact directories, whose names are the task ids)
// is not followed out of it.
func removeStage(workspace, taskID string) {
	ws, err := os.OpenRoot(workspace)
	if err != nil {
		return
	}
	defer ws.Close()
	if fi, err := ws.Lstat(StageDir); err != nil || !fi.IsDir() {
		_ = ws.Remove(StageDir) // a symlink or a file: only the name goes
		return
	}
	_ = ws.RemoveAll(StageDir + "/" + taskID)
	_ = ws.Remove(StageDir)
}

// openStage opens <workspace>/.odek-artifacts/<taskID> without following a
// symlink at either component.
func openStage(workspace, taskID string) (*os.File, error) {
	ws, err := os.Open(workspace)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	return safepath.OpenBeneath(ws, StageDir+"/"+taskID, safepath.DirFlags|unix.O_NOFOLLOW)
}

func (c *Collected) problem(format string, args ...any) {
	c.Problems = append(c.Problems, "[artifact] "+fmt.Sprintf(format, args...))
}

// take moves one staged entry from stage (a descriptor) into rootDir, the
// descriptor of root.
func (c *Collected) take(stage, rootDir *os.File, root string, e fs.DirEntry, ids map[string]bool) {
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
	size, sum, err := moveFile(stage, rootDir, name, dst)
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

// moveFile renames name from the stage directory to the same name in
// rootDir, dst (copying across file systems), then measures dst through a
// descriptor that refuses symlinks, so the size and hash describe exactly
// the file the ref will name. Both directories are descriptors: a rename
// does not follow a symlink in the last component, and no other component
// is looked up again.
func moveFile(stage, rootDir *os.File, name, dst string) (int64, string, error) {
	if _, err := os.Lstat(dst); err == nil {
		return 0, "", errors.New("an artifact of that name already exists")
	}
	if err := unix.Renameat(int(stage.Fd()), name, int(rootDir.Fd()), name); err != nil {
		if !errors.Is(err, syscall.EXDEV) {
			return 0, "", errors.New("cannot be moved")
		}
		if err := copyFile(stage, name, dst); err != nil {
			return 0, "", err
		}
	}
	return measure(dst)
}

func copyFile(stage *os.File, name, dst string) error {
	in, err := safepath.OpenBeneath(stage, name, safepath.FileFlags|unix.O_NOFOLLOW)
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
