package risk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests close survivors of mutation testing (scripts/mutate.sh and
// scripts/hand-mutate.sh).

// apart is a workspace whose home is not one of its parents, so a deletion
// of home is destructive by the home rule alone, not by the rule for the
// working directory's parents.
func apart(t *testing.T) *Classifier {
	t.Helper()
	tmp := t.TempDir()
	root, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{filepath.Join(root, "sub"), filepath.Join(home, "docs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c, err := New(Options{Dir: root, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Recursive deletions of /, a top-level directory, home and the working
// directory are destructive (denied), whichever way -r is spelled; the
// same deletions without -r are system_write (a prompt) or local_write.
func TestRecursiveDeletionsAreDestructive(t *testing.T) {
	c := apart(t)
	for _, tc := range []shellCase{
		{"rm -R /usr", Destructive}, {"rm -Rf /usr", Destructive}, {"rm -fR /opt", Destructive},
		{"rm --recursive /usr", Destructive}, {"rm -rf ~", Destructive}, {"rm -rf ~/", Destructive},
		{"rm -R ~", Destructive}, {"rm -r ~/docs", SystemWrite}, {"rm -rf /usr/local", SystemWrite},
		{"rmdir -p /usr", Destructive}, {"rmdir /usr", SystemWrite}, {"rm /usr", SystemWrite},
		{"rm ~/x", SystemWrite}, {"rm -rf .", Destructive}, {"rm -r sub", LocalWrite},
		{"chmod -R 777 ~", Destructive}, {"chown -R me /usr", Destructive}, {"chmod 777 /usr", SystemWrite},
		{"rm -rf $DIR", Destructive}, {"rm $DIR", SystemWrite},
		{"rm --no-preserve-root x", Destructive}, {"mv ~ /tmp/x", Destructive},
		{"shred x", Destructive}, {"kill -1", SystemWrite}, {"kill -9 -1", Destructive},
	} {
		if a := c.Shell(tc.cmd); a.Class != tc.want {
			t.Errorf("Shell(%q) = %s (%s), want %s", tc.cmd, a.Class, a.Reason, tc.want)
		}
	}
}

// Without a home, "~" cannot be resolved: a deletion of it is never local.
func TestNoHome(t *testing.T) {
	c, err := New(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"rm -rf ~", "rm ~/x"} {
		if a := c.Shell(cmd); a.Class < SystemWrite {
			t.Errorf("Shell(%q) without a home = %s (%s)", cmd, a.Class, a.Reason)
		}
	}
	if a, r := c.Path(Write, "~/x"); a.Class != SystemWrite || r != "" {
		t.Errorf("Path(Write, ~/x) without a home = %s %q", a.Class, r)
	}
}

// Every raw device prefix is blocked for writes and for path tools.
func TestEveryRawDeviceBlocked(t *testing.T) {
	c := apart(t)
	for _, pre := range rawPrefixes {
		p := pre + "x"
		if strings.HasSuffix(pre, "/") || strings.HasSuffix(pre, "-") {
			p = pre + "0"
		}
		if strings.HasPrefix(pre, "/proc/") {
			p = pre
		}
		if a := c.Shell("echo x > " + p); a.Class != Blocked {
			t.Errorf("echo x > %s = %s (%s), want blocked", p, a.Class, a.Reason)
		}
		if a, _ := c.Path(Read, p); a.Class != Blocked || a.Inspect {
			t.Errorf("Path(Read, %s) = %s inspect %v, want blocked", p, a.Class, a.Inspect)
		}
	}
	for s := range sinks {
		if a := c.Shell("echo x > " + s); a.Class != Safe {
			t.Errorf("echo x > %s = %s (%s), want safe", s, a.Class, a.Reason)
		}
	}
}

// Every fixed-class program list is honoured (a removed entry would make
// the program unknown, or worse, another class).
func TestEveryListedProgram(t *testing.T) {
	c := apart(t)
	for _, tc := range []struct {
		names []string
		want  Class
	}{{destructivePrograms, Destructive}, {systemPrograms, SystemWrite}, {networkPrograms, NetworkEgress}} {
		for _, name := range tc.names {
			if a := c.Shell(name + " arg"); a.Class != tc.want {
				t.Errorf("Shell(%q) = %s (%s), want %s", name+" arg", a.Class, a.Reason, tc.want)
			}
		}
	}
	for name := range execVars {
		if a := c.Shell(name + "=x ls"); a.Class != CodeExecution {
			t.Errorf("%s=x ls = %s, want code_execution", name, a.Class)
		}
	}
	for _, pre := range execVarPrefixes {
		if a := c.Shell(pre + "X=x ls"); a.Class != CodeExecution {
			t.Errorf("%sX=x ls = %s, want code_execution", pre, a.Class)
		}
	}
}

// The lists themselves are pinned by name: a test that walked the lists
// would not notice an entry removed from them.
func TestListedByName(t *testing.T) {
	c := apart(t)
	for want, cmds := range map[Class][]string{
		Destructive: {"mkfs x", "mke2fs x", "mkswap x", "mkdosfs x", "mkntfs x", "wipefs x", "fdisk x", "sfdisk x",
			"cfdisk x", "gdisk x", "sgdisk x", "parted x", "blkdiscard x", "shutdown", "reboot", "halt", "poweroff",
			"telinit 0", "init 0", "hdparm x", "nvme x", "zpool x", "zfs x", "diskutil x"},
		SystemWrite: {"mount x", "umount x", "swapoff -a", "useradd x", "userdel x", "usermod x", "passwd", "visudo",
			"iptables -F", "nft flush ruleset", "ufw disable", "modprobe x", "insmod x", "rmmod x", "chattr +i x",
			"setfacl -m u:x:r f", "ldconfig", "service x stop", "pkill x", "killall x", "fsck x", "losetup x",
			"cryptsetup x", "lvremove x", "mdadm x", "apt-get remove x", "setcap x f", "at now"},
		CodeExecution: {"BASH_ENV=x ls", "ENV=x ls", "PROMPT_COMMAND=x ls", "PS4=x ls", "PYTHONPATH=x ls",
			"NODE_OPTIONS=x ls", "PERL5OPT=x ls", "GIT_SSH_COMMAND=x ls", "LD_PRELOAD=x ls", "DYLD_INSERT_LIBRARIES=x ls",
			"GIT_CONFIG_GLOBAL=x ls", "npm_config_script_shell=x ls", "GOFLAGS=x ls", "EDITOR=x ls", "PAGER=x ls"},
		Blocked: {"echo x > /dev/sda", "echo x > /dev/hda", "echo x > /dev/vda", "echo x > /dev/xvda", "echo x > /dev/nvme0n1",
			"echo x > /dev/mmcblk0", "echo x > /dev/disk0", "echo x > /dev/mapper/x", "echo x > /dev/dm-0",
			"echo x > /dev/loop0", "echo x > /dev/md0", "echo x > /dev/sr0", "echo x > /dev/nbd0", "echo x > /dev/rbd0",
			"echo x > /dev/zram0", "echo x > /dev/mem", "echo x > /dev/kmem", "echo x > /dev/port",
			"echo x > /dev/block/x", "echo x > /dev/rdisk0", "echo c > /proc/sysrq-trigger", "cat /proc/kcore > /dev/sda"},
	} {
		for _, cmd := range cmds {
			if a := c.Shell(cmd); a.Class != want {
				t.Errorf("Shell(%q) = %s (%s), want %s", cmd, a.Class, a.Reason, want)
			}
		}
	}
	if a, _ := c.Path(Read, "/proc/kcore"); a.Class != Blocked {
		t.Errorf("Path(Read, /proc/kcore) = %s", a.Class)
	}
}

// A command past maxCommandBytes, or nested past maxNesting, is unknown.
func TestClassifierBounds(t *testing.T) {
	c := apart(t)
	long := "echo " + strings.Repeat("a", maxCommandBytes)
	if a := c.Shell(long); a.Class != Unknown {
		t.Errorf("a %d-byte command = %s", len(long), a.Class)
	}
	if a := c.Shell(long[:maxCommandBytes]); a.Class != Safe {
		t.Errorf("a %d-byte command = %s (%s), want safe", maxCommandBytes, a.Class, a.Reason)
	}
	cmd := "ls"
	for range maxNesting + 1 {
		cmd = "sh -c " + sq(cmd)
	}
	if a := c.Shell(cmd); a.Class != Unknown {
		t.Errorf("nested %d deep = %s (%s), want unknown", maxNesting+1, a.Class, a.Reason)
	}
}

func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Merge keeps the higher class's reason and the lower Inspect.
func TestMergeKeepsTheWorstReason(t *testing.T) {
	a := Assessment{Class: Safe, Set: Of(Safe), Reason: "reads", Inspect: true}
	b := Assessment{Class: Destructive, Set: Of(Destructive), Reason: "rm -rf /"}
	if m := a.Merge(b); m.Reason != "rm -rf /" || m.Class != Destructive || m.Inspect {
		t.Errorf("Merge = %+v", m)
	}
	if m := b.Merge(a); m.Reason != "rm -rf /" || m.Class != Destructive {
		t.Errorf("Merge the other way = %+v", m)
	}
	ctx := WithApproved(context.Background(), b)
	if got, ok := Approved(ctx); !ok || got.Class != Destructive {
		t.Errorf("Approved = %+v, %v", got, ok)
	}
	if _, ok := Approved(context.Background()); ok {
		t.Error("Approved on a bare context")
	}
}

// Exactly maxNesting levels of sh -c are still classified.
func TestNestingAtTheBound(t *testing.T) {
	c := apart(t)
	cmd := "rm -rf /"
	for range maxNesting {
		cmd = "sh -c " + sq(cmd)
	}
	if a := c.Shell(cmd); a.Class != Destructive {
		t.Errorf("nested %d deep = %s (%s), want destructive", maxNesting, a.Class, a.Reason)
	}
}

// $IFS is read as a word break only when it is the whole variable name.
func TestReplaceIFSNameBoundaries(t *testing.T) {
	for in, want := range map[string]string{
		"rm$IFS-rf": "rm -rf", "rm$IFS": "rm ", "rm${IFS}x": "rm x", "rm${IFS:0:1}x": "rm x", "rm${IFS": "rm${IFS",
		"$IFSa": "$IFSa", "$IFSz": "$IFSz", "$IFSA": "$IFSA", "$IFSZ": "$IFSZ", "$IFS0": "$IFS0", "$IFS9": "$IFS9",
		"$IFS_": "$IFS_", "$IFS-": " -", "$IFS@": " @", "$IFS`": " `", "$IFS{": " {", "$IFS[": " [", "$IFS/": " /", "$IFS:": " :",
	} {
		if got := replaceIFS(in); got != want {
			t.Errorf("replaceIFS(%q) = %q, want %q", in, got, want)
		}
	}
}

// A home given through a symlink is resolved, so "~" and its real path
// are the same place.
func TestHomeThroughASymlink(t *testing.T) {
	tmp := t.TempDir()
	root, real := filepath.Join(tmp, "ws"), filepath.Join(tmp, "realhome")
	for _, d := range []string{root, real} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(tmp, "homelink")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Dir: root, Home: link})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"rm -rf ~", "rm -rf " + real, "rm -rf " + link + "/"} {
		if a := c.Shell(cmd); a.Class != Destructive {
			t.Errorf("Shell(%q) = %s (%s)", cmd, a.Class, a.Reason)
		}
	}
	if _, r := c.Path(Write, "~/x"); r != filepath.Join(real, "x") {
		t.Errorf("~/x resolves to %q", r)
	}
}

// Class names and sets stay within the known classes.
func TestClassAndSetBounds(t *testing.T) {
	n := Class(len(classNames))
	if got := n.String(); got != "unknown" {
		t.Errorf("Class(%d).String() = %q", n, got)
	}
	if got := Class(len(classNames) - 1).String(); got != classNames[len(classNames)-1] {
		t.Errorf("the last class is %q", got)
	}
	stray := Set(1) << len(classNames)
	if stray.Max() != Safe || len(stray.List()) != 0 {
		t.Errorf("a set with only an unknown bit: max %s, list %v", stray.Max(), stray.List())
	}
	if s := Of(Blocked) | stray; s.Max() != Blocked || len(s.List()) != 1 {
		t.Errorf("max %s, list %v", s.Max(), s.List())
	}
}

// A symlink chain of maxLinkHops links resolves; one more is a loop, and
// the path cannot be resolved (never inside).
func TestLinkHopBound(t *testing.T) {
	c := apart(t)
	root := c.Root()
	chain := func(prefix string, n int) string {
		if err := os.WriteFile(filepath.Join(root, prefix+"target"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		prev := prefix + "target"
		for i := range n {
			name := fmt.Sprintf("%s%d", prefix, i)
			if err := os.Symlink(prev, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
			prev = name
		}
		return prev
	}
	if a, _ := c.Path(Write, chain("a", maxLinkHops)); a.Class != LocalWrite {
		t.Errorf("%d hops: %s (%s), want local_write", maxLinkHops, a.Class, a.Reason)
	}
	if a, _ := c.Path(Write, chain("b", maxLinkHops+1)); a.Class != SystemWrite {
		t.Errorf("%d hops: %s (%s), want system_write", maxLinkHops+1, a.Class, a.Reason)
	}
}

// A symlink in the workspace to a character device is judged by where it
// points, not blocked; one to a block device is blocked.
func TestSymlinkToDevices(t *testing.T) {
	c := apart(t)
	if err := os.Symlink("/dev/null", filepath.Join(c.Root(), "nul")); err != nil {
		t.Fatal(err)
	}
	if a := c.Shell("echo x > nul"); a.Class == Blocked {
		t.Errorf("a link to /dev/null is %s (%s)", a.Class, a.Reason)
	}
	st, err := os.Stat("/dev/loop0")
	if err != nil || st.Mode()&os.ModeDevice == 0 || st.Mode()&os.ModeCharDevice != 0 {
		t.Skip("no block device /dev/loop0 here")
	}
	if err := os.Symlink("/dev/loop0", filepath.Join(c.Root(), "disk")); err != nil {
		t.Fatal(err)
	}
	if a := c.Shell("echo x > disk"); a.Class != Blocked {
		t.Errorf("a link to a block device is %s (%s)", a.Class, a.Reason)
	}
}
