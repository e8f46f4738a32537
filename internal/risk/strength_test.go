package risk

import (
	"context"
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
