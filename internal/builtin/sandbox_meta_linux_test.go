package builtin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// metaAttack is one metadata change outside the writable roots (or a
// set-id bit anywhere), and how to see that it happened.
type metaAttack struct {
	name, cmd string
	root      bool                 // the row needs root (to make a file another user owns)
	changed   func(j *jail) string // "" when nothing changed
	needs     string
}

func modeOf(path string) os.FileMode {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	return fi.Mode()
}

// modeChanged reports a change of path's mode from want.
func modeChanged(path string, want os.FileMode) string {
	if got := modeOf(path); got != want {
		return path + " is now " + got.String()
	}
	return ""
}

var metaAttacks = []metaAttack{
	{name: "chmod-ssh-key", cmd: `chmod 644 ~/.ssh/id_rsa`,
		changed: func(j *jail) string { return modeChanged(filepath.Join(j.home, ".ssh/id_rsa"), 0o600) }},
	{name: "chmod-odek-secrets", cmd: `chmod 666 "$ODEK_HOME/secrets.env"`,
		changed: func(j *jail) string { return modeChanged(filepath.Join(j.odekHome, "secrets.env"), 0o600) }},
	{name: "chmod-ssh-dir", cmd: `chmod 777 ~/.ssh`,
		changed: func(j *jail) string { return modeChanged(filepath.Join(j.home, ".ssh"), os.ModeDir|0o700) }},
	{name: "chmod-outside", cmd: `chmod 777 "$OUT/target"`,
		changed: func(j *jail) string { return modeChanged(filepath.Join(j.out, "target"), 0o644) }},
	{name: "setuid-outside", cmd: `chmod u+s "$OUT/target"`,
		changed: func(j *jail) string { return modeChanged(filepath.Join(j.out, "target"), 0o644) }},
	{name: "fchmod-outside", needs: "python3", cmd: `python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fchmod(fd, 0o777)' "$OUT/target"`,
		changed: func(j *jail) string { return modeChanged(filepath.Join(j.out, "target"), 0o644) }},
	{name: "chmod-through-link", cmd: `ln -s "$OUT/target" l && chmod 777 l`,
		changed: func(j *jail) string { return modeChanged(filepath.Join(j.out, "target"), 0o644) }},
	{name: "chmod-dotdot", cmd: `chmod 777 ../../outside/target`,
		changed: func(j *jail) string { return modeChanged(filepath.Join(j.out, "target"), 0o644) }},
	{name: "touch-outside", cmd: `touch -d 2001-02-03 "$OUT/target"`,
		changed: func(j *jail) string { return mtimeChanged(filepath.Join(j.out, "target")) }},
	{name: "touch-ssh", cmd: `touch -d 2001-02-03 ~/.ssh/id_rsa`,
		changed: func(j *jail) string { return mtimeChanged(filepath.Join(j.home, ".ssh/id_rsa")) }},
	{name: "xattr-outside", needs: "python3", cmd: `python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.odek", b"x")' "$OUT/target"`,
		changed: func(j *jail) string { return xattrSet(filepath.Join(j.out, "target")) }},
	{name: "chown-outside", cmd: `chown "$(id -u):$(id -g)" "$OUT/target" && echo CHOWNED`,
		changed: func(*jail) string { return "" }}, // the output is checked for CHOWNED
	{name: "chmod-foreign-inside", cmd: `chmod 777 foreign`, root: true,
		// Root owns root's files, not this one: without CAP_FOWNER the
		// command cannot change it, and the supervisor acts without
		// capabilities too.
		changed: func(j *jail) string { return modeChanged(filepath.Join(j.ws, "foreign"), 0o644) }},
	{name: "setuid-inside", cmd: `cp /bin/true su && chmod 4755 su`,
		changed: func(j *jail) string { return setID(filepath.Join(j.ws, "su")) }},
	{name: "setgid-inside", cmd: `mkdir sg && chmod g+s sg`,
		changed: func(j *jail) string { return setID(filepath.Join(j.ws, "sg")) }},
	{name: "setuid-create", needs: "python3", cmd: `python3 -c 'import os; os.close(os.open("cr", os.O_CREAT|os.O_WRONLY, 0o4755))'`,
		changed: func(j *jail) string { return setID(filepath.Join(j.ws, "cr")) }},
	{name: "setuid-mknod", needs: "python3", cmd: `python3 -c 'import os, stat; os.mknod("mk", stat.S_IFREG|0o6755)'`,
		changed: func(j *jail) string { return setID(filepath.Join(j.ws, "mk")) }},
}

var baseTime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

func mtimeChanged(path string) string {
	fi, err := os.Stat(path)
	if err == nil && !fi.ModTime().Equal(baseTime) {
		return path + " has mtime " + fi.ModTime().String()
	}
	return ""
}

func xattrSet(path string) string {
	buf := make([]byte, 64)
	if n, err := syscall.Getxattr(path, "user.odek", buf); err == nil {
		return path + " has user.odek=" + string(buf[:n])
	}
	return ""
}

func setID(path string) string {
	if m := modeOf(path); m&(os.ModeSetuid|os.ModeSetgid) != 0 {
		return path + " is " + m.String()
	}
	return ""
}

// prepareMeta sets the modes and times the attacks try to change.
func prepareMeta(t *testing.T, j *jail) {
	t.Helper()
	foreign := filepath.Join(j.ws, "foreign")
	mustWrite(t, foreign, "theirs\n")
	if os.Getuid() == 0 {
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	for path, mode := range map[string]os.FileMode{
		foreign:                              0o644,
		filepath.Join(j.home, ".ssh/id_rsa"): 0o600, filepath.Join(j.odekHome, "secrets.env"): 0o600,
		filepath.Join(j.home, ".ssh"): 0o700, filepath.Join(j.out, "target"): 0o644,
	} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(j.out, "target"), filepath.Join(j.home, ".ssh/id_rsa")} {
		if err := os.Chtimes(p, baseTime, baseTime); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSandboxMetadata: no sandboxed command changes the mode, owner,
// times or extended attributes of a file outside the writable roots —
// by path, by descriptor, through a symlink or "..", and run as root
// (which owns root's files without any capability) — and none sets a
// setuid or setgid bit anywhere, the workspace included. Landlock has no
// right for metadata: before the supervisor every row succeeded.
func TestSandboxMetadata(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	for _, a := range metaAttacks {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			if a.needs != "" {
				if _, err := exec.LookPath(a.needs); err != nil {
					t.Skipf("%s is not installed", a.needs)
				}
			}
			if a.root && os.Getuid() != 0 {
				t.Skip("needs root to make a file another user owns")
			}
			j := newJail(t, true, nil)
			prepareMeta(t, j)
			out := j.run(a.cmd, 30)
			if c := a.changed(j); c != "" || strings.Contains(out, "CHOWNED") {
				t.Errorf("metadata changed: %s\noutput:\n%s", c, out)
			}
		})
	}
}

// TestSandboxMetadataControl runs the same attacks without the sandbox
// and requires each to change what it aims at: the checks above see real
// changes, and the sandbox is what stops them.
func TestSandboxMetadataControl(t *testing.T) {
	t.Parallel()
	if os.Getenv("ODEK_TEST_SKIP_CONTROL") == "1" {
		t.Skip("ODEK_TEST_SKIP_CONTROL=1")
	}
	for _, a := range metaAttacks {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			if a.needs != "" {
				if _, err := exec.LookPath(a.needs); err != nil {
					t.Skipf("%s is not installed", a.needs)
				}
			}
			if a.root && os.Getuid() != 0 {
				t.Skip("needs root to make a file another user owns")
			}
			j := newJail(t, false, nil)
			prepareMeta(t, j)
			out := j.run(a.cmd, 30)
			if a.changed(j) == "" && !strings.Contains(out, "CHOWNED") {
				t.Errorf("the attack changed nothing even without the sandbox:\n%s", out)
			}
		})
	}
}

// TestSandboxMetadataInside: the metadata work a build does inside the
// workspace and the temp dir still works under the supervisor: chmod +x
// and run, touch and touch -d, by descriptor, tar's extraction with modes
// and times, git checkout of an executable, an xattr on a workspace file
// (where the file system takes user attributes), chown to oneself.
func TestSandboxMetadataInside(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	j := newJail(t, true, nil)
	cases := []struct{ name, cmd, want, needs string }{
		{"chmod +x", `printf '#!/bin/sh\necho ran\n' > s.sh && chmod +x s.sh && ./s.sh`, "ran", ""},
		{"touch", `touch new && touch -d 2001-02-03 new && date -r new +%Y`, "2001", ""},
		{"touch in TMPDIR", `f=$(mktemp) && touch -d 2001-02-03 "$f" && date -r "$f" +%Y`, "2001", ""},
		{"touch -h link", `ln -s a alink && touch -h -d 2001-02-03 alink; echo done`, "done", ""},
		{"fchmod", `python3 -c 'import os; fd=os.open("fd.txt", os.O_CREAT|os.O_WRONLY, 0o600); os.fchmod(fd, 0o640); print(oct(os.stat("fd.txt").st_mode & 0o777))'`, "0o640", "python3"},
		{"tar", `mkdir -p src/d && echo x > src/d/f && chmod 750 src/d/f && touch -d 2001-02-03 src/d/f && tar cf t.tar -C src . && mkdir dst && tar xpf t.tar -C dst && stat -c '%a %y' dst/d/f`, "750 2001-02-03", ""},
		{"git checkout", `git init -q g && cd g && printf '#!/bin/sh\necho git-ran\n' > run && chmod +x run && git add run && git commit -q -m x && rm run && git checkout -- run && ./run`, "git-ran", "git"},
		{"xattr", `python3 -c 'import os
try:
    os.setxattr("a", "user.k", b"v"); print(os.getxattr("a", "user.k"))
except OSError as e:
    import errno; print("unsupported" if e.errno == errno.EOPNOTSUPP else e)'`, "", "python3"},
		{"chown self", `chown "$(id -u):$(id -g)" a && echo owned`, "owned", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.needs != "" {
				if _, err := exec.LookPath(c.needs); err != nil {
					t.Skipf("%s is not installed", c.needs)
				}
			}
			out := j.run(c.cmd, 60)
			if !strings.Contains(out, "exit code: 0") || !strings.Contains(out, c.want) ||
				(c.name == "xattr" && !strings.Contains(out, "b'v'") && !strings.Contains(out, "unsupported")) {
				t.Errorf("want exit 0 and %q:\n%s", c.want, out)
			}
		})
	}
}
