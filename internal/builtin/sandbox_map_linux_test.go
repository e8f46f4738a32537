package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/sandbox"
)

// mapFixture is a workspace beside a home with secrets and odek's home,
// real directories under one temp dir, and the path tools over them under
// the sandbox's map (issue 33, item 4).
type mapFixture struct {
	tools                         map[string]Tool
	base, home, odekHome, ws, tmp string
	outside                       string
	mu                            sync.Mutex
	denials                       []Denial
}

// The secrets the fixture plants; none may ever appear in a tool's result.
const (
	secretKey    = "SECRET-KEY-MATERIAL"
	secretNetrc  = "SECRET-NETRC"
	odekConfig   = `{"sandbox": {"mode": "workspace-write"}}`
	secretOdekEV = "SECRET-ODEK-ENV"
	sshOnlyName  = "only-in-dot-ssh" // a name listed only inside ~/.ssh
)

func newMapFixture(t *testing.T, mode string) *mapFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &mapFixture{base: base, home: base + "/home", odekHome: base + "/home/.odek", ws: base + "/ws", tmp: base + "/tmp", outside: base + "/outside"}
	write(t, f.home, ".ssh/id_rsa", secretKey+"\n")
	write(t, f.home, ".ssh/"+sshOnlyName, "x\n")
	write(t, f.home, ".netrc", secretNetrc+"\n")
	write(t, f.odekHome, "config.json", odekConfig)
	write(t, f.odekHome, "secrets.env", secretOdekEV+"\n")
	write(t, f.home, "notes.txt", "plain notes\n")
	write(t, f.outside, "file.txt", "outside text\n")
	write(t, f.ws, "a.txt", "alpha\nbeta\n")
	if err := os.MkdirAll(f.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	cls, err := risk.New(risk.Options{Dir: f.ws, Home: f.home})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := sandbox.NewAccess(sandbox.Policy{Mode: mode, Workspace: f.ws, TempDir: f.tmp,
		Protected: sandbox.DefaultProtected(f.home, f.odekHome)})
	if err != nil {
		t.Fatal(err)
	}
	acc.Prepare()
	f.tools = map[string]Tool{}
	onDeny := func(d Denial) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.denials = append(f.denials, d)
	}
	for _, tl := range New(Options{Classifier: cls, Access: acc, OnDeny: onDeny}) {
		f.tools[tl.Name()] = tl
	}
	return f
}

// try calls tool with args twice, as a run whose risk policy allows every
// class would: assessed and approved (the loop's way), and straight to
// Call with a system_write approval (a map that only AssessRisk held
// would fail there). It returns both results.
func (f *mapFixture) try(t *testing.T, tool, args string) (outs []string, errs []error) {
	t.Helper()
	tl := f.tools[tool]
	raw := json.RawMessage(args)
	a, err := tl.AssessRisk(raw)
	if err == nil {
		var out string
		out, err = tl.Call(risk.WithApproved(context.Background(), a), raw)
		outs = append(outs, out)
	}
	errs = append(errs, err)
	allowed := risk.Assessment{Class: risk.SystemWrite, Set: risk.Of(risk.SystemWrite)}
	out, err := tl.Call(risk.WithApproved(context.Background(), allowed), raw)
	return append(outs, out), append(errs, err)
}

func (f *mapFixture) deniedCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.denials)
}

// mapCase is one call and what the map must say of it: 0 for allowed.
type mapCase struct {
	tool, args string
	want       sandbox.Kind
	// where names the path the refusal must name (a resolved path).
	where string
}

func (f *mapFixture) check(t *testing.T, c mapCase) {
	t.Helper()
	before := f.deniedCount()
	outs, errs := f.try(t, c.tool, c.args)
	for i, err := range errs {
		for _, out := range outs {
			for _, s := range []string{secretKey, secretNetrc, secretOdekEV, sshOnlyName} {
				if strings.Contains(out, s) {
					t.Errorf("%s %s: the result shows %q:\n%s", c.tool, c.args, s, out)
				}
			}
		}
		if c.want == 0 {
			if err != nil {
				t.Errorf("%s %s (way %d): %v, want it allowed", c.tool, c.args, i, err)
			}
			continue
		}
		var d *SandboxDeniedError
		if !errors.As(err, &d) {
			t.Errorf("%s %s (way %d): %v, want the sandbox's denial", c.tool, c.args, i, err)
			continue
		}
		if d.Err.Kind != c.want || !d.Denied() || !strings.Contains(err.Error(), c.where) ||
			!strings.HasPrefix(err.Error(), c.tool+" ") || !strings.Contains(d.Reason(), "sandbox: ") {
			t.Errorf("%s %s (way %d): kind %d, %q, want kind %d naming %s", c.tool, c.args, i, d.Err.Kind, err, c.want, c.where)
		}
	}
	if c.want != 0 && f.deniedCount() != before+len(errs) {
		t.Errorf("%s %s: OnDeny heard %d denials, want %d", c.tool, c.args, f.deniedCount()-before, len(errs))
	}
}

// unchanged fails the test when a secret file is not as planted.
func (f *mapFixture) unchanged(t *testing.T) {
	t.Helper()
	for p, want := range map[string]string{
		f.home + "/.ssh/id_rsa": secretKey + "\n", f.odekHome + "/config.json": odekConfig,
		f.home + "/.netrc": secretNetrc + "\n", f.ws + "/a.txt": "alpha\nbeta\n",
	} {
		if data, err := os.ReadFile(p); err != nil || string(data) != want {
			t.Errorf("%s is now %q (%v)", p, data, err)
		}
	}
	if _, err := os.Stat(f.outside + "/planted"); err == nil {
		t.Error("a file was written outside the writable roots")
	}
}

// js quotes a path for a JSON argument.
func js(s string) string { b, _ := json.Marshal(s); return string(b) }

// The path tools obey the sandbox's map whatever the risk class allows:
// no protected path is read or written (outside the workspace, through a
// symlink or a hard link in it, by /proc's aliases), no write lands
// outside the writable roots, and a read-only sandbox writes nothing.
func TestPathToolsObeyTheMap(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{sandbox.ModeWorkspaceWrite, sandbox.ModeReadOnly} {
		t.Run(mode, func(t *testing.T) {
			f := newMapFixture(t, mode)
			ro := mode == sandbox.ModeReadOnly
			writeKind := func(k sandbox.Kind) sandbox.Kind {
				if ro && k != sandbox.ProcessFiles {
					return sandbox.ReadOnly
				}
				return k
			}
			ssh, key, cfg := f.home+"/.ssh", f.home+"/.ssh/id_rsa", f.odekHome+"/config.json"
			for _, link := range [][2]string{{key, "key-link"}, {cfg, "cfg-link"}, {f.odekHome, "odek-dir"}, {f.home, "home-link"}} {
				if err := os.Symlink(link[0], f.ws+"/"+link[1]); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Link(f.home+"/.netrc", f.ws+"/netrc-hardlink"); err != nil {
				t.Fatal(err)
			}
			cases := []mapCase{
				// reads
				{"read_file", `{"path":"~/.ssh/id_rsa"}`, sandbox.Protected, key},
				{"read_file", `{"path":` + js(key) + `}`, sandbox.Protected, key},
				{"read_file", `{"path":"../home/.ssh/./../.ssh/id_rsa"}`, sandbox.Protected, key},
				{"read_file", `{"path":"key-link"}`, sandbox.Protected, key},
				{"read_file", `{"path":"home-link/.ssh/id_rsa"}`, sandbox.Protected, key},
				{"read_file", `{"path":"netrc-hardlink"}`, sandbox.Protected, f.home + "/.netrc"},
				{"read_file", `{"path":"~/.odek/secrets.env"}`, sandbox.Protected, f.odekHome},
				{"read_file", `{"path":"/proc/self/environ"}`, sandbox.ProcessFiles, "/proc/self/environ"},
				{"read_file", `{"path":"/proc/self/root` + key + `"}`, sandbox.ProcessFiles, "/proc/self/root"},
				{"read_file", `{"path":"/proc/thread-self/cwd/key-link"}`, sandbox.ProcessFiles, "/proc/"},
				{"read_file", `{"path":"/dev/fd/0"}`, sandbox.Protected, "/dev"},
				{"patch", `{"path":"~/.ssh/id_rsa","old":"SECRET","new":"x"}`, writeKind(sandbox.Protected), key},
				{"list_dir", `{"path":"~/.ssh"}`, sandbox.Protected, ssh},
				{"list_dir", `{"path":"odek-dir"}`, sandbox.Protected, f.odekHome},
				{"glob", `{"pattern":"~/.ssh/*"}`, sandbox.Protected, ssh},
				{"search_files", `{"pattern":"SECRET","path":"~/.ssh"}`, sandbox.Protected, ssh},
				{"search_files", `{"pattern":"SECRET","path":"key-link"}`, sandbox.Protected, key},
				{"search_files", `{"pattern":"SECRET","path":"netrc-hardlink"}`, sandbox.Protected, f.home + "/.netrc"},
				// what a walk reaches: protected directories are not entered,
				// protected files (and links to them) not read
				{"list_dir", `{"path":"~","depth":3}`, 0, ""},
				{"glob", `{"pattern":"~/**/id_rsa"}`, 0, ""},
				{"search_files", `{"pattern":"SECRET"}`, 0, ""},
				{"search_files", `{"pattern":"SECRET","path":"~"}`, 0, ""},
				{"read_file", `{"path":"~/notes.txt"}`, 0, ""},
				{"read_file", `{"path":` + js(f.outside+"/file.txt") + `}`, 0, ""},
				// writes
				{"write_file", `{"path":` + js(cfg) + `,"content":"{\"sandbox\":{\"mode\":\"off\"}}"}`, writeKind(sandbox.Protected), cfg},
				{"write_file", `{"path":"cfg-link","content":"{}"}`, writeKind(sandbox.Protected), cfg},
				{"write_file", `{"path":"odek-dir/config.json","content":"{}"}`, writeKind(sandbox.Protected), cfg},
				{"write_file", `{"path":"~/.ssh/authorized_keys","content":"ssh-ed25519 AAAA"}`, writeKind(sandbox.Protected), ssh},
				{"write_file", `{"path":"~/.ssh/new/dir/f","content":"x"}`, writeKind(sandbox.Protected), ssh},
				{"write_file", `{"path":` + js(f.outside+"/planted") + `,"content":"x"}`, writeKind(sandbox.OutsideWritable), f.outside + "/planted"},
				{"write_file", `{"path":"~/planted","content":"x"}`, writeKind(sandbox.OutsideWritable), f.home + "/planted"},
				{"patch", `{"path":"a.txt","old":"alpha","new":"alpha"}`, writeKind(0), f.ws + "/a.txt"},
				{"write_file", `{"path":"new/dir/b.txt","content":"b"}`, writeKind(0), f.ws + "/new/dir/b.txt"},
				{"write_file", `{"path":` + js(f.tmp+"/scratch") + `,"content":"x"}`, writeKind(0), f.tmp + "/scratch"},
				{"write_file", `{"path":"/proc/self/comm","content":"x"}`, sandbox.ProcessFiles, "/proc/self/comm"},
			}
			for _, c := range cases {
				f.check(t, c)
			}
			f.unchanged(t)
			if !ro {
				if data, _ := os.ReadFile(f.ws + "/new/dir/b.txt"); string(data) != "b" {
					t.Errorf("a write inside the workspace did not land: %q", data)
				}
			} else if _, err := os.Stat(f.ws + "/new"); err == nil {
				t.Error("read-only: a directory was made in the workspace")
			}
		})
	}
}

// A walk shows a protected directory's name (a command may list it too)
// but nothing in it, and never reads a protected file.
func TestPathToolWalksSkipProtected(t *testing.T) {
	t.Parallel()
	f := newMapFixture(t, sandbox.ModeWorkspaceWrite)
	if err := os.Link(f.home+"/.netrc", f.ws+"/netrc-hardlink"); err != nil {
		t.Fatal(err)
	}
	outs, _ := f.try(t, "list_dir", `{"path":"~","depth":3}`)
	if !strings.Contains(outs[0], ".ssh/") || strings.Contains(outs[0], "id_rsa") || strings.Contains(outs[0], "secrets.env") {
		t.Errorf("list_dir ~ depth 3:\n%s", outs[0])
	}
	outs, _ = f.try(t, "search_files", `{"pattern":"SECRET|plain"}`)
	if strings.Contains(outs[0], secretNetrc) || !strings.HasPrefix(outs[0], "0 matches") {
		t.Errorf("search_files in the workspace read the hard link:\n%s", outs[0])
	}
	outs, _ = f.try(t, "search_files", `{"pattern":"SECRET|plain","path":"~"}`)
	if !strings.Contains(outs[0], "notes.txt:1: plain notes") {
		t.Errorf("search_files ~ did not search what it may:\n%s", outs[0])
	}
	outs, _ = f.try(t, "glob", `{"pattern":"~/**/*"}`)
	if strings.Contains(outs[0], "id_rsa") || strings.Contains(outs[0], "config.json") {
		t.Errorf("glob listed inside a protected directory:\n%s", outs[0])
	}
}

// The map holds while another process swaps what a workspace name leads
// to between each check and the open: a symlink exchanged between a
// harmless file and ~/.ssh/id_rsa, a symlink exchanged between an outside
// file (the same class as the key, so the recheck passes) and the key,
// and ~/.ssh itself renamed in and out of the workspace (no symlink
// anywhere: only the identity of what was opened tells). No call may
// ever return the key, under openat2 and under the component walk.
func TestPathToolsMapRace(t *testing.T) {
	rounds := raceRounds(t) / 2
	for _, impl := range openImpls {
		for _, attack := range []string{"link-inside", "link-outside", "dir-moved-in"} {
			for _, tc := range []struct{ tool, args string }{
				{"read_file", `{"path":"x/id_rsa"}`},
				{"search_files", `{"pattern":"SECRET","path":"x"}`},
				{"patch", `{"path":"x/id_rsa","old":"SECRET","new":"SECRET"}`},
				{"list_dir", `{"path":"x"}`},
			} {
				t.Run(impl.name+"/"+attack+"/"+tc.tool, func(t *testing.T) {
					impl.use(t)
					f := newMapFixture(t, sandbox.ModeWorkspaceWrite)
					stop := swapper(t, f, attack)
					leaks, ok := 0, 0
					for range rounds {
						outs, errs := f.try(t, tc.tool, tc.args)
						for i, out := range outs {
							// A patch that succeeds found "SECRET" in the key.
							if strings.Contains(out, secretKey) || strings.Contains(out, sshOnlyName) || tc.tool == "patch" && errs[i] == nil {
								leaks++
							}
							if errs[i] == nil {
								ok++
							}
						}
					}
					swaps := stop()
					f.unchanged(t)
					t.Logf("%d rounds, %d swaps, %d calls succeeded, %d leaks", rounds, swaps, ok, leaks)
					if leaks > 0 {
						t.Fatalf("%d calls returned the key (or listed ~/.ssh)", leaks)
					}
				})
			}
		}
	}
}

// swapper starts exchanging what ws/x is, as fast as it can, and returns
// the function that stops it and reports the swaps. x is a directory
// holding id_rsa in every attack:
//   - link-inside: ws/x is a symlink to ws/safe (inside) or to ~/.ssh;
//   - link-outside: ws/x is a symlink to outside/safe or to ~/.ssh;
//   - dir-moved-in: ws/x is ws/safe, or ~/.ssh itself renamed there.
func swapper(t *testing.T, f *mapFixture, attack string) func() int {
	t.Helper()
	safeIn, safeOut := f.ws+"/safe", f.outside+"/safe"
	write(t, safeIn, "id_rsa", "harmless\n")
	write(t, safeOut, "id_rsa", "harmless\n")
	x, alt := f.ws+"/x", f.ws+"/alt"
	var a, b string // exchanged: the paths at x and alt
	switch attack {
	case "link-inside", "link-outside":
		target := safeIn
		if attack == "link-outside" {
			target = safeOut
		}
		mustSymlink(t, target, x)
		mustSymlink(t, f.home+"/.ssh", alt)
		a, b = x, alt
	case "dir-moved-in":
		if err := os.Rename(safeIn, x); err != nil {
			t.Fatal(err)
		}
		a, b = x, f.home+"/.ssh"
	}
	stop, done := make(chan struct{}), make(chan int)
	first := make(chan struct{})
	go func() {
		n := 0
		for {
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap: %v", err)
				if n == 0 {
					close(first)
				}
				done <- n
				return
			}
			if n++; n == 1 {
				close(first)
			}
			select {
			case <-stop:
				if n%2 == 1 { // leave everything where it started
					_ = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
				}
				done <- n
				return
			default:
			}
		}
	}()
	<-first
	return func() int { close(stop); return <-done }
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// A refusal reads as the model needs it: the tool, the path as given,
// the path it resolved to and why.
func TestSandboxDeniedErrorText(t *testing.T) {
	t.Parallel()
	f := newMapFixture(t, sandbox.ModeReadOnly)
	_, errs := f.try(t, "patch", `{"path":"a.txt","old":"alpha","new":"x"}`)
	want := fmt.Sprintf(`patch "a.txt": denied by the sandbox: the sandbox is read-only: %s/a.txt cannot be written`, f.ws)
	if errs[0] == nil || errs[0].Error() != want {
		t.Errorf("got  %v\nwant %s", errs[0], want)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.denials) == 0 || f.denials[0].Reason != "sandbox: read-only sandbox: "+strings.TrimPrefix(want, `patch "a.txt": denied by the sandbox: `) ||
		f.denials[0].Class != risk.LocalWrite || f.denials[0].What != "a.txt" || f.denials[0].Message != want {
		t.Errorf("OnDeny heard %+v", f.denials)
	}
}
