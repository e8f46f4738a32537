package risk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPathClassification(t *testing.T) {
	c := fixture(t)
	root := c.Root()
	tests := []struct {
		op   Op
		path string
		want Class
		to   string // the resolved path, relative to root ("" = not checked); "/…" absolute
	}{
		{Read, "go.mod", Safe, "go.mod"},
		{Read, "./sub/../go.mod", Safe, "go.mod"},
		{Read, root + "/go.mod", Safe, "go.mod"},
		{Read, "sub", Safe, "sub"},
		{Read, "missing/file.txt", Safe, "missing/file.txt"},
		{Read, "insub/x", Safe, "sub/x"},
		{Write, "new.txt", LocalWrite, "new.txt"},
		{Write, "a/b/c.txt", LocalWrite, "a/b/c.txt"},
		{Write, "missing/../x", LocalWrite, "x"},
		{Write, "insub/x", LocalWrite, "sub/x"},
		// escapes: .., absolute, symlinks (also dangling and via ..), ~
		{Read, "../secret", SystemWrite, ""},
		{Read, "sub/../../secret", SystemWrite, ""},
		{Read, "/etc/passwd", SystemWrite, "/etc/passwd"},
		{Read, "etc/passwd", SystemWrite, "/etc/passwd"},
		{Write, "etc/x", SystemWrite, "/etc/x"},
		{Write, "dangling", SystemWrite, ""},
		{Write, "up/ws2/x", SystemWrite, ""},
		{Write, "insub/../../x", SystemWrite, ""},
		{Write, "~/x", SystemWrite, ""},
		{Read, "~/ws/go.mod", Safe, "go.mod"},
		{Read, "~other/x", SystemWrite, ""},
		{Write, "/tmp/x", SystemWrite, ""},
		// devices
		{Write, "/dev/sda", Blocked, "/dev/sda"},
		{Read, "/dev/nvme0n1", Blocked, ""},
		{Write, "/proc/sysrq-trigger", Blocked, ""},
		{Write, "/dev/null", SystemWrite, ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			a, resolved := c.Path(tc.op, tc.path)
			if a.Class != tc.want {
				t.Errorf("Path(%v, %q) = %s (%s), want %s", tc.op, tc.path, a.Class, a.Reason, tc.want)
			}
			if a.Inspect != (tc.op == Read && a.Class != Blocked) {
				t.Errorf("Inspect = %v", a.Inspect)
			}
			want := tc.to
			if want != "" && !strings.HasPrefix(want, "/") {
				want = filepath.Join(root, want)
			}
			if want != "" && resolved != want {
				t.Errorf("resolved to %q, want %q", resolved, want)
			}
		})
	}
}

func TestResolveLinkLoop(t *testing.T) {
	c := fixture(t)
	loop := filepath.Join(c.Root(), "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if a, _ := c.Path(Read, "loop"); a.Class != SystemWrite {
		t.Fatalf("a symlink loop = %s, want system_write (unresolvable)", a.Class)
	}
}

func TestNewResolvesRoot(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Dir: link})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if c.Root() != real {
		t.Fatalf("root %q, want %q", c.Root(), real)
	}
	if a, _ := c.Path(Write, filepath.Join(link, "x")); a.Class != LocalWrite {
		t.Fatalf("a write through the linked root = %s", a.Class)
	}
	if _, err := New(Options{Dir: filepath.Join(dir, "missing")}); err == nil {
		t.Fatal("a missing working directory is an error")
	}
}
