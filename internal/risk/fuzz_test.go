package risk

import (
	"strings"
	"testing"
)

// destructivePrograms a command can never be safe with, whatever else it holds.
var neverSafe = []string{"rm -rf /", "rm file", "dd if=/dev/zero of=x", "mkfs /dev/sdb", "mkfs.ext4 /dev/sdb",
	"shred x", "wipefs -a /dev/sdb", "fdisk /dev/sdb", "parted /dev/sdb rm 1", "mkswap /dev/sdb", "blkdiscard /dev/sdb"}

// templates put a destructive invocation (%P) where it runs, before the
// fuzzer's text (%S), through each evasion the classifier must see through.
var templates = []string{
	"%P; %S", "%P\n%S", "%P && %S", "%P || %S", "%P | %S", "ls | %P; %S", "(%P); %S", "{ %P; }; %S",
	"echo $(%P); %S", "echo `%P`; %S", "cat <(%P); %S", "sudo %P; %S", "sudo -u x -- %P; %S", "env %P; %S",
	"env -i A=1 %P; %S", "command %P; %S", "exec %P; %S", "nice -n 1 %P; %S", "timeout 5 %P; %S",
	"time %P; %S", "nohup %P & %S", "busybox %P; %S", "\\%P; %S", "/bin/%P; %S", "/usr/sbin/%P; %S",
	"'%Q'%R; %S", "\"%Q\"%R; %S", "X=1 %P; %S", "bash -c '%P'; %S", "sh -c \"%P\"; %S", "eval '%P'; %S",
	"if true; then %P; fi; %S", "f(){ %P; }; %S", "xargs %P < l; %S", "find . -exec %P \\;; %S",
	"%I; %S", "watch '%P'; %S", "trap '%P' EXIT; %S",
}

// expand fills a template with one destructive invocation.
func expand(tpl, inv, s string) string {
	prog, args, _ := strings.Cut(inv, " ")
	r := strings.NewReplacer("%P", inv, "%Q", prog, "%R", " "+args, "%I", strings.ReplaceAll(inv, " ", "${IFS}"), "%S", s)
	return r.Replace(tpl)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// FuzzShell: the classifier never panics on any input, returns a
// consistent assessment, and never calls safe a command that runs a known
// destructive program, however it is dressed up.
func FuzzShell(f *testing.F) {
	for _, s := range []string{"ls", "echo 'x", "cat <<EOF", ")", "# c", "\\", "$(", "`", "a=b", "${IFS}", "\x00", "'\n'"} {
		f.Add(s, uint16(0))
	}
	c := fixture(f)
	f.Fuzz(func(t *testing.T, s string, pick uint16) {
		check(t, c, s)
		inv := neverSafe[int(pick)%len(neverSafe)]
		tpl := templates[int(pick/uint16(len(neverSafe)))%len(templates)]
		for _, cmd := range []string{expand(tpl, inv, s), inv + " " + shellQuote(s)} {
			if a := check(t, c, cmd); a.Class == Safe {
				t.Fatalf("Shell(%q) = safe (%s), but it runs %q", cmd, a.Reason, inv)
			}
		}
	})
}

func check(t *testing.T, c *Classifier, cmd string) Assessment {
	a := c.Shell(cmd)
	if a.Class > Blocked || a.Class != a.Set.Max() || a.Set == 0 || a.Reason == "" {
		t.Fatalf("Shell(%q) = %+v: inconsistent", cmd, a)
	}
	return a
}
