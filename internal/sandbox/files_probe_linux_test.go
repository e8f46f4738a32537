//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fileFixture is a tree for the file rules: ws (the workspace), out (a
// tree nothing grants writing), tmp (the private temp dir), cache (a
// writable path), prot (protected) holding pub (a readable path) and a
// secret. Every existing file holds "x".
type fileFixture struct{ root, ws, out, tmp, cache, prot, pub string }

func newFileFixture(t *testing.T) fileFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fileFixture{root: root, ws: filepath.Join(root, "ws"), out: filepath.Join(root, "out"), tmp: filepath.Join(root, "tmp"),
		cache: filepath.Join(root, "cache"), prot: filepath.Join(root, "prot"), pub: filepath.Join(root, "prot", "pub")}
	for _, d := range []string{f.ws, f.out, f.tmp, f.cache, f.pub, filepath.Join(f.ws, "d"), filepath.Join(f.out, "d"),
		filepath.Join(f.ws, "sub"), filepath.Join(f.out, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{"ws/e", "ws/f", "ws/g", "ws/h", "ws/gone", "out/f", "out/g", "out/h", "out/gone", "prot/secret", "prot/pub/f"} {
		if err := os.WriteFile(filepath.Join(root, file), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f fileFixture) policy(t *testing.T, mode string) Policy {
	t.Helper()
	p := Policy{Mode: mode, Workspace: f.ws, TempDir: f.tmp, Writable: []string{f.cache}, Readable: []string{f.pub},
		Protected: []string{f.prot}, Landlock: true, Network: true}
	mustPrepare(t, &p)
	return p
}

// writes are the ways to change a tree, each on its own names under dir
// (which holds f, g, h, gone, d and sub).
func writes(dir string) []string {
	j := func(n string) string { return filepath.Join(dir, n) }
	return []string{"create:" + j("new"), "append:" + j("f"), "trunc:" + j("g"), "mkdir:" + j("newdir"),
		"rmdir:" + j("d"), "unlink:" + j("gone"), "mkfifo:" + j("fifo"), "symlink:f|" + j("sym"),
		"link:" + j("h") + "|" + j("hard"), "rename:" + j("h") + "|" + j("moved"),
		// Across directories of one tree: Landlock's refer right.
		"rename:" + j("moved") + "|" + j("sub/moved"), "link:" + j("f") + "|" + j("sub/hard")}
}

// TestModesOnRealFiles: what each mode lets a confined process do to real
// files. workspace-write: every kind of write in the workspace, the temp
// dir and a writable path, and none outside them (not into a tree it may
// read, not by a rename or a link out of the workspace). read-only: no
// write of any kind in the workspace or a writable path, every read, and
// the temp dir still writable. In both: nothing under the protected path
// is read but the readable path inside it. Every op works
// unconfined (the control), on a fixture of its own.
func TestModesOnRealFiles(t *testing.T) {
	t.Parallel()
	if Probe().LandlockABI < abiRefer {
		t.Skip("no Landlock with renames across directories (ABI 2)")
	}
	for _, mode := range []string{ModeWorkspaceWrite, ModeReadOnly} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			build := func() (fileFixture, []probeCase) {
				f := newFileFixture(t)
				wsWant, cacheWant := "ok", "ok"
				if mode == ModeReadOnly {
					wsWant, cacheWant = "denied", "denied"
				}
				cases := []probeCase{
					{"read:" + filepath.Join(f.ws, "f"), "ok"}, {"list:" + f.ws, "ok"},
					{"read:" + filepath.Join(f.out, "f"), "ok"}, {"list:" + f.out, "ok"},
					{"read:" + filepath.Join(f.prot, "secret"), "EACCES"},
					// A protected directory's names may be listed (its
					// parent's right to list is Landlock's for the tree).
					{"list:" + f.prot, "ok"},
					{"read:" + filepath.Join(f.pub, "f"), "ok"}, {"list:" + f.pub, "ok"},
					{"list:" + f.root, "ok"},
				}
				for _, op := range writes(f.ws) {
					cases = append(cases, probeCase{op, wsWant})
				}
				for _, op := range writes(f.out) {
					cases = append(cases, probeCase{op, "denied"})
				}
				cases = append(cases,
					probeCase{"create:" + filepath.Join(f.tmp, "t"), "ok"},
					probeCase{"create:" + filepath.Join(f.cache, "c"), cacheWant},
					probeCase{"link:" + filepath.Join(f.ws, "e") + "|" + filepath.Join(f.out, "linked"), "denied"},
					probeCase{"rename:" + filepath.Join(f.ws, "e") + "|" + filepath.Join(f.out, "fromws"), "denied"},
				)
				return f, cases
			}
			opsOf := func(cases []probeCase) []string {
				ops := make([]string, len(cases))
				for i, c := range cases {
					ops[i] = c.op
				}
				return ops
			}
			_, cases := build()
			control := probeControl(t, opsOf(cases)...)
			for _, op := range opsOf(cases) {
				if r := control[op]; r != "ok" {
					t.Fatalf("the control: %s got %q", op, r)
				}
			}
			f, cases := build()
			_, got := probeRun(t, f.policy(t, mode), opsOf(cases)...)
			for _, c := range cases {
				if r := got[c.op]; (c.want == "ok") != (r == "ok") || c.want != "ok" && c.want != "denied" && r != c.want {
					t.Errorf("%s: %q, want %s", c.op, r, c.want)
				}
			}
		})
	}
}

// wantProtected is the protected set of a user whose home is /h and odek
// home /h/.odek, written out here: a path dropped from the code's list
// fails this test rather than leaving the test's own list with it.
var wantProtected = []string{
	"/dev", "/etc/gshadow", "/etc/shadow", "/etc/ssh", "/etc/sudoers",
	"/h/.aws", "/h/.azure", "/h/.bash_history", "/h/.cargo/credentials", "/h/.cargo/credentials.toml",
	"/h/.config/chromium", "/h/.config/gcloud", "/h/.config/gh", "/h/.config/google-chrome", "/h/.config/hub",
	"/h/.config/odek", "/h/.config/op", "/h/.docker", "/h/.gem/credentials", "/h/.git-credentials", "/h/.gnupg",
	"/h/.kube", "/h/.lesshst", "/h/.local/share/keyrings", "/h/.mozilla", "/h/.mysql_history", "/h/.netrc",
	"/h/.node_repl_history", "/h/.npmrc", "/h/.odek", "/h/.password-store", "/h/.psql_history", "/h/.pypirc",
	"/h/.python_history", "/h/.ssh", "/h/.terraform.d/credentials.tfrc.json", "/h/.vault-token", "/h/.viminfo",
	"/h/.yarnrc", "/h/.zsh_history", "/root/.ssh",
}

// TestDefaultProtectedList: the list is exactly the one above, plus each
// absolute path of the operator's sandbox.protected_paths (a relative one
// is no path to protect and is left out).
func TestDefaultProtectedList(t *testing.T) {
	t.Parallel()
	if got := DefaultProtected("/h", "/h/.odek"); !slices.Equal(got, wantProtected) {
		t.Errorf("DefaultProtected =\n%q\nwant\n%q", got, wantProtected)
	}
	got := DefaultProtected("/h", "/h/.odek", "/srv/keys/", "relative/keys", "/h/.ssh")
	want := append(slices.Clone(wantProtected), "/srv/keys")
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("with the operator's paths =\n%q\nwant\n%q", got, want)
	}
}

// TestProtectedPathsStayUnreadable: every path of the default list, each
// planted under a home of the test's own, and a path of the operator's
// protected_paths, cannot be read by a confined command though it can be
// read unconfined; the system's (/etc/shadow, a file in /etc/ssh, a
// device but the few every command may use) likewise where they exist
// and the test may read them.
func TestProtectedPathsStayUnreadable(t *testing.T) {
	t.Parallel()
	if Probe().LandlockABI < abiFS {
		t.Skip("no Landlock")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, extra := filepath.Join(root, "home"), filepath.Join(root, "srv", "keys")
	odekHome := filepath.Join(home, ".odek")
	var cases []probeCase
	for _, p := range append(wantProtected, "/srv/keys") {
		switch {
		case p == "/srv/keys":
			p = extra
		case len(p) > 3 && p[:3] == "/h/":
			p = filepath.Join(home, p[3:])
		default: // the system's own: a file as it is, a directory's first file
			if _, err := os.Lstat(p); err == nil {
				cases = append(cases, probeCase{"open:" + fileIn(p), "EACCES"})
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("secret"), 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, probeCase{"read:" + p, "EACCES"})
	}
	// A protected path that is a symlink protects where it leads too.
	link, real := filepath.Join(root, "keys-link"), filepath.Join(root, "real-keys")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "key"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, probeCase{"read:" + filepath.Join(real, "key"), "EACCES"})
	ws := filepath.Join(root, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Landlock: true,
		Protected: DefaultProtected(home, odekHome, extra, "srv/keys", link)}
	mustPrepare(t, &p)
	checkProbe(t, p, append(cases, probeCase{"list:" + home, "ok"}, probeCase{"read:/etc/hostname", "ok"}))
}

// fileIn is path, or for a directory the first file in it that is not a
// device every command is granted (/dev's /dev/null and the like).
func fileIn(path string) string {
	entries, err := os.ReadDir(path)
	if err != nil {
		return path
	}
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		if !e.IsDir() && e.Type()&os.ModeSymlink == 0 && !slices.Contains(devices, p) && !slices.Contains(readDevices, p) {
			return p
		}
	}
	return path
}
