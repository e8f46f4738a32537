//go:build unix

package safepath

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// MkdirAll opens the directory rel below dir, creating each missing
// component with perm; every component is opened like OpenBeneath, so a
// symlink swapped in anywhere fails the call instead of being followed.
func MkdirAll(dir *os.File, rel string, perm fs.FileMode) (*os.File, error) {
	if f, err := OpenBeneath(dir, rel, DirFlags); !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	cur, err := OpenBeneath(dir, ".", DirFlags)
	if err != nil {
		return nil, err
	}
	for _, name := range strings.Split(rel, "/") {
		next, err := mkdirOne(cur, name, perm)
		cur.Close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// mkdirOne opens (creating it if missing) the directory name in dir.
func mkdirOne(dir *os.File, name string, perm fs.FileMode) (*os.File, error) {
	if !oneName(name) {
		return nil, ErrEscapes
	}
	f, err := OpenBeneath(dir, name, DirFlags)
	if !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	err = unix.Mkdirat(int(dir.Fd()), name, uint32(perm.Perm()))
	runtime.KeepAlive(dir)
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return nil, err
	}
	return OpenBeneath(dir, name, DirFlags)
}

// oneName reports a single path component that names something in its
// directory (not "", "." or "..").
func oneName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.Contains(name, "/")
}

// Lstat describes the entry name of dir without following it: its type
// bits (fs.ModeDir, fs.ModeSymlink, fs.ModeIrregular for any other
// non-regular file) and permission bits.
func Lstat(dir *os.File, name string) (fs.FileMode, error) {
	if !oneName(name) {
		return 0, ErrEscapes
	}
	var st unix.Stat_t
	err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	runtime.KeepAlive(dir)
	if err != nil {
		return 0, err
	}
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	default:
		mode |= fs.ModeIrregular
	}
	return mode, nil
}

// Readlink reads the target of the symlink name in dir.
func Readlink(dir *os.File, name string) (string, error) {
	if !oneName(name) {
		return "", ErrEscapes
	}
	buf := make([]byte, 256)
	for {
		n, err := unix.Readlinkat(int(dir.Fd()), name, buf)
		runtime.KeepAlive(dir)
		if err != nil {
			return "", err
		}
		if n < len(buf) {
			return string(buf[:n]), nil
		}
		buf = make([]byte, 2*len(buf))
	}
}

// WriteFile replaces (or creates) the file name in dir with data and mode
// perm, atomically: a reader sees the old file or the whole new one. The
// temporary file is created O_EXCL|O_NOFOLLOW in dir, written, fsynced and
// renamed over name with renameat within dir, which is then fsynced; it is
// removed if anything fails. A symlink at name is replaced, never followed.
func WriteFile(dir *os.File, name string, data []byte, perm fs.FileMode) (err error) {
	if !oneName(name) {
		return ErrEscapes
	}
	defer runtime.KeepAlive(dir)
	dfd := int(dir.Fd())
	tmp, fd, err := createTemp(dfd, name)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	defer func() {
		if err != nil {
			f.Close()
			_ = unix.Unlinkat(dfd, tmp, 0)
		}
	}()
	if err = f.Chmod(perm.Perm()); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = unix.Renameat(dfd, tmp, dfd, name); err != nil {
		return err
	}
	_ = dir.Sync() // best effort: the file itself is already durable
	return nil
}

// createTemp creates a fresh file beside name in dirfd, never through a
// symlink and never one that exists.
func createTemp(dirfd int, name string) (string, int, error) {
	var b [8]byte
	for range 100 {
		_, _ = rand.Read(b[:])
		tmp := "." + name + ".tmp-" + hex.EncodeToString(b[:])
		if len(tmp) > 255 { // NAME_MAX: keep the random part, cut the name
			tmp = "." + hex.EncodeToString(b[:]) + ".tmp"
		}
		fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		switch {
		case err == nil:
			return tmp, fd, nil
		case errors.Is(err, unix.EEXIST), errors.Is(err, unix.EINTR):
			continue
		}
		return "", -1, err
	}
	return "", -1, errors.New("no unused temporary file name")
}
