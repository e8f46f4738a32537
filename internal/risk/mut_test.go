package risk

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Tests that close survivors of gremlins and of the hand mutations
// (scripts/mutate.sh, scripts/hand-mutations.txt): each case pins the whole
// set of classes and the reason, so a wrapper that stops running its command,
// or runs it when there is none, is seen.

// A shell's options may stand before and after -c; the command string is
// the first operand after them. sh -o errexit -c 'rm -rf /' used to be
// code_execution (a prompt) instead of destructive (denied): the classifier
// stopped at -o's value.
func TestShellOptionsBeforeTheCommandString(t *testing.T) {
	c := fixture(t)
	forms := []string{
		"sh -o errexit -c %s", "bash -O extglob -c %s", "bash -c -e %s", "bash +e -c %s",
		"bash -c -- %s", "sh -ec %s", "bash --norc -c %s", "sh -e -o pipefail -c %s",
	}
	for _, f := range forms {
		cmd := strings.ReplaceAll(f, "%s", "'rm -rf /'")
		if a := c.Shell(cmd); a.Class != Destructive {
			t.Errorf("Shell(%q) = %s (%s), want destructive", cmd, a.Class, a.Reason)
		}
	}
	for _, cmd := range []string{"sh - -c 'rm -rf /'", "sh -o", "bash -c", "sh -o errexit", "sh x.sh", `sh "$X" -c 'rm -rf /'`} {
		if a := c.Shell(cmd); a.Class != CodeExecution {
			t.Errorf("Shell(%q) = %s (%s), want code_execution", cmd, a.Class, a.Reason)
		}
	}
	// The real shell runs the operand after these options as the command.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	for i, f := range forms {
		marker := filepath.Join(dir, "ran"+string(rune('a'+i)))
		args := rejoin(f, marker)
		out, err := exec.Command(bash, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("bash %q: %v: %s", args, err, out)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("bash %q did not run its command string", args)
		}
	}
}

// rejoin builds form's arguments (after the shell's name) with "touch
// marker" as the one command-string argument.
func rejoin(form, marker string) []string {
	var args []string
	for _, f := range strings.Fields(form)[1:] {
		if f == "%s" {
			f = "touch " + marker
		}
		args = append(args, f)
	}
	return args
}

// pinned is one command's whole assessment: every class and the start of
// the reason (all of it when it ends in $).
type pinned struct {
	cmd    string
	set    []Class
	reason string
}

func checkPinned(t *testing.T, c *Classifier, cases []pinned) {
	t.Helper()
	for _, tc := range cases {
		a := c.Shell(tc.cmd)
		reasonOK := strings.HasPrefix(a.Reason, tc.reason)
		if exact, ok := strings.CutSuffix(tc.reason, "$"); ok {
			reasonOK = a.Reason == exact
		}
		if a.Set != Of(tc.set...) || !reasonOK {
			t.Errorf("Shell(%q) = %v (%q), want %v (%q…)", tc.cmd, a.Set.List(), a.Reason, tc.set, tc.reason)
		}
	}
}

// Wrappers without their command are safe and say so; with one they add
// their own class to the command's.
func TestWrappersPinned(t *testing.T) {
	S, L, W, X, D, U := Safe, LocalWrite, SystemWrite, CodeExecution, Destructive, Unknown
	checkPinned(t, fixture(t), []pinned{
		{"nice", []Class{S}, "nice without a command"},
		{"nohup", []Class{S}, "nohup without a command"},
		{"nice -n 5", []Class{S}, "nice without a command"},
		{"nice -n 5 rm -rf /", []Class{D}, "rm -r /"},
		{"env", []Class{S}, "env prints the environment"},
		{"env -i", []Class{S}, "env prints the environment"},
		{`env -S ls "$X"`, []Class{X}, "runs a command string built at run time"},
		{`env -S "$X" ls`, []Class{X}, "runs a command string built at run time"},
		{"env -S 'rm -rf /'", []Class{D}, "rm -r /"},
		{"env 1LD_PRELOAD=x ls", []Class{U}, "1LD_PRELOAD=x is not a program"},
		{"env A1=2 ls", []Class{S}, "ls only reads"},
		{"env _X=1 ls", []Class{S}, "ls only reads"},
		{"env =x ls", []Class{U}, "=x is not a program"},
		{"env LD_PRELOAD=x ls", []Class{S, X}, "env sets LD_PRELOAD"},
		{"env A=1 LD_PRELOAD=x ls", []Class{S, X}, "env sets LD_PRELOAD"},
		{`env "$V" ls`, []Class{U}, ""},
		{"env A=1", []Class{S}, "env prints the environment"},
		{"env -C / rm -rf x", []Class{D}, "rm -r /x"}, {"env -C / rm x", []Class{W}, "rm outside the working directory"},
		{"env -C sub rm x", []Class{L}, "rm inside the working directory"},
		{"timeout 5", []Class{S}, "timeout without a command"},
		{"timeout", []Class{S}, "timeout without a command"},
		{"timeout 5 rm -rf /", []Class{D}, "rm -r /"},
		{"timeout -s KILL 5 rm -rf /", []Class{D}, "rm -r /"},
		{"watch", []Class{S}, "watch without a command"},
		{"watch -n 1", []Class{S}, "watch without a command"},
		{"watch -x ls", []Class{S}, "ls only reads"},
		{"watch -n 1 'rm -rf /'", []Class{D}, "rm -r /"},
		{"command", []Class{S}, "command without a command"},
		{"command rm -rf /", []Class{D}, "rm -r /"},
		{"command -v rm", []Class{S}, "command -v looks a command up"},
		{"exec", []Class{S}, "exec applies redirections"},
		{"exec rm -rf /", []Class{D}, "rm -r /"},
		{"trap", []Class{S}, "trap lists handlers"},
		{"trap -p", []Class{S}, "trap lists handlers"},
		{"trap 'rm -rf /' EXIT", []Class{D}, "rm -r /"},
		{"trap - EXIT", []Class{S}, "trap resets handlers"},
		{"trap '' INT", []Class{S}, "trap resets handlers"},
		{`trap "$X" EXIT`, []Class{X}, "runs a command string built at run time"},
		{"sudo", []Class{W}, "sudo runs with other privileges"},
		{"sudo -u root", []Class{W}, "sudo runs with other privileges"},
		{"sudo -s", []Class{W, X}, "sudo opens a root shell"},
		{"sudo -i", []Class{W, X}, "sudo opens a root shell"},
		{"sudo -u root rm -rf /", []Class{W, D}, "rm -r /"},
		{"su", []Class{W, X}, "su opens a shell"},
		{"su -c 'rm -rf /'", []Class{W, D}, "rm -r /"},
		{"chroot /x", []Class{W, X}, "chroot opens a shell"},
		{"chroot /x ls", []Class{S, W}, "chroot runs in another root"},
		{"unshare", []Class{W, X}, "unshare opens a shell"},
		{"unshare ls", []Class{S, W}, "unshare enters other namespaces"},
		{"chrt -p 1 5", []Class{W}, "chrt changes another process"},
		{"chrt 5 rm -rf /", []Class{D}, "rm -r /"},
		{"taskset -p 1", []Class{W}, "taskset changes another process"},
		{"taskset 1 rm -rf /", []Class{D}, "rm -r /"},
		{"flock x", []Class{L}, "flock creates its lock file inside"},
		{"flock /tmp/l ls", []Class{S, W}, "flock creates its lock file outside"},
		{"flock x -c 'rm -rf /'", []Class{D}, "rm -r /"},
		{"xargs", []Class{S}, "echo only reads"},
		{"xargs rm", []Class{W}, "rm a path odek cannot resolve"},
		{"script", []Class{X}, "script opens a shell"},
		{"script -c 'rm -rf /' log", []Class{L, D}, "rm -r /"},
		{"busybox rm -rf /", []Class{D}, "rm -r /"},
		{"eval 'rm -rf /'", []Class{D}, "rm -r /"},
		{`eval "$X"`, []Class{X}, "runs a command string built at run time"},
		{"popd", []Class{S}, "popd changes directory"},
		{"cd s* && rm -rf x", []Class{S, W}, "rm a path odek cannot resolve"},
		{`cd "$X" && rm -rf x`, []Class{S, W}, "rm a path odek cannot resolve"},
		{"cd sub && rm -rf ../sub", []Class{S, L}, "rm inside the working directory"},
		{"cd / && rm -rf usr", []Class{S, D}, "rm -r /usr"},
		{"cd - && rm x", []Class{S, W}, "rm a path odek cannot resolve"},
		{"cd && rm x", []Class{S, W}, "rm a path odek cannot resolve"},
		{"popd && rm x", []Class{S, W}, "rm a path odek cannot resolve"},
	})
}

// find's leading options, its roots, its tests and -exec's command.
func TestFindPinned(t *testing.T) {
	S, L, W, D := Safe, LocalWrite, SystemWrite, Destructive
	checkPinned(t, fixture(t), []pinned{
		{"find -L / -delete", []Class{S, D}, "find -delete deletes under -r /"},
		{"find -O3 / -delete", []Class{S, D}, "find -delete deletes under -r /"},
		{"find -D tree / -delete", []Class{S, D}, "find -delete deletes under -r /"},
		{"find -P -H / -delete", []Class{S, D}, "find -delete deletes under -r /"},
		{"find / -name x -delete", []Class{S, W}, "find -delete deletes under outside"},
		{"find / ! -name x -delete", []Class{S, W}, "find -delete deletes under outside"},
		{"find / '(' -name x ')' -delete", []Class{S, W}, "find -delete deletes under outside"},
		{"find -delete", []Class{S, D}, "find -delete deletes under -r /"},
		{"find / /usr -delete", []Class{S, D}, "find -delete deletes under -r /"},
		{"find /tmp / -delete", []Class{S, D}, "find -delete deletes under -r /"},
		{"find . -exec rm -rf {} ;", []Class{S, D}, "rm -r /"},
		{"find / -exec rm -rf {} +", []Class{S, D}, "rm -r /"},
		{`find /x -exec ls {} \; -exec rm -rf / \;`, []Class{S, D}, "rm -r /"},
		{`find /x -exec rm -rf {} \; -delete`, []Class{S, D}, "rm -r /x"},
		{`find . -exec rm {} \;`, []Class{S, L}, "rm inside the working directory"},
		{"find / -exec rm -rf '{}' ;", []Class{S, D}, "rm -r /"},
		{"find . -fprint /etc/x", []Class{S, W}, "find -fprint writes outside"},
		{"find . -fprint", []Class{S}, "find lists files"},
		{"find . -name '*.go'", []Class{S}, "find lists files"},
	})
}

// $'…' strings decode as bash decodes them, so a program name spelt with
// escapes is still recognised.
func TestDecodeANSIC(t *testing.T) {
	for in, want := range map[string]string{
		`plain`: "plain", `\x72m`: "rm", `\x414`: "A4", `\x4`: "\x04", `\u00e9`: "é", `\u00e9f`: "éf",
		`\U0001F600`: "😀", `\101`: "A", `\1014`: "A4", `\7`: "\a", `\cA`: "\x01", `\n\t`: "\n\t",
		`\\`: `\`, `\'`: "'", `a\`: `a\`, `\e`: "\x1b", `\u0041B`: "AB", `\xAf`: "\xaf",
	} {
		got, ok := decodeANSIC(in)
		if !ok || got != want {
			t.Errorf("decodeANSIC(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{`\q`, `\u`, `\xg`, `\8`, `\c`} {
		if got, ok := decodeANSIC(in); ok {
			t.Errorf("decodeANSIC(%q) = %q, true; want false", in, got)
		}
	}
	c := fixture(t)
	for _, cmd := range []string{`$'\x72\x6d' -rf /`, `$'\162\155' -rf /`, `$'\u0072m' -rf /`, `$'r\x6d' -rf /`} {
		if a := c.Shell(cmd); a.Class != Destructive {
			t.Errorf("Shell(%q) = %s (%s), want destructive", cmd, a.Class, a.Reason)
		}
	}
}

// parseOpts splits getopt-style: values glued or in the next argument,
// long values after = or as the next argument, operands after --.
func TestParseOptsSplits(t *testing.T) {
	words := func(s string) []arg {
		var out []arg
		for _, f := range strings.Fields(s) {
			out = append(out, lit(f))
		}
		return out
	}
	ops := func(o opts) string {
		var s []string
		for _, a := range o.ops {
			s = append(s, a.s)
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		args, short, long string
		vals              map[string]string
		ops               string
	}{
		{"-n5 x", "n", "", map[string]string{"n": "5"}, "x"},
		{"-n 5 x", "n", "", map[string]string{"n": "5"}, "x"},
		{"-an5 x", "n", "", map[string]string{"n": "5"}, "x"},
		{"-n", "n", "", map[string]string{}, ""},
		{"--lines=5 x", "", "", map[string]string{"lines": "5"}, "x"},
		{"--lines 5 x", "", "lines", map[string]string{"lines": "5"}, "x"},
		{"--lines 5 x", "", "", map[string]string{}, "5 x"},
		{"--lines", "", "lines", map[string]string{}, ""},
		{"x -- -n 5", "n", "", map[string]string{}, "x -n 5"},
		{"x --", "n", "", map[string]string{}, "x"},
		{"- x", "n", "", map[string]string{}, "- x"},
	} {
		o := parseOpts(words(tc.args), tc.short, tc.long)
		got := map[string]string{}
		for k, v := range o.vals {
			got[k] = v.s
		}
		if len(got) != len(tc.vals) || ops(o) != tc.ops {
			t.Errorf("parseOpts(%q) = vals %v ops %q, want %v %q", tc.args, got, ops(o), tc.vals, tc.ops)
			continue
		}
		for k, v := range tc.vals {
			if got[k] != v {
				t.Errorf("parseOpts(%q) = vals %v, want %v", tc.args, got, tc.vals)
			}
		}
	}
	if !hasWord("a bc d", "bc") || hasWord("a bc d", "b") || hasWord("", "a") {
		t.Error("hasWord matches parts of words or misses whole ones")
	}
}

// Where the shell is after a cd in a subshell, a branch, a list or a
// function, and which redirections write.
func TestWalkPinned(t *testing.T) {
	S, L, W, X, D := Safe, LocalWrite, SystemWrite, CodeExecution, Destructive
	checkPinned(t, fixture(t), []pinned{
		{"cd / & rm -rf usr", []Class{S, L}, "rm inside the working directory"},
		{"cd / && rm -rf usr", []Class{S, D}, "rm -r /usr"},
		{"(cd /); rm -rf usr", []Class{S, L}, "rm inside the working directory"},
		{"if true; then cd /; fi; rm -rf usr", []Class{S, W}, "rm a path odek cannot resolve"},
		{"true && cd /; rm -rf usr", []Class{S, W}, "rm a path odek cannot resolve"},
		{"cd / && true; rm -rf usr", []Class{S, W}, "rm a path odek cannot resolve"},
		{"true && true; rm -rf usr", []Class{S, L}, "rm inside the working directory"},
		{"cd / || true; rm -rf usr", []Class{S, W}, "rm a path odek cannot resolve"},
		{"true || cd /; rm -rf usr", []Class{S, W}, "rm a path odek cannot resolve"},
		{"true || true; rm -rf usr", []Class{S, L}, "rm inside the working directory"},
		{"cd / | true; rm -rf usr", []Class{S, L}, "rm inside the working directory"},
		{"f() { cd /; }; f; rm -rf usr", []Class{S, W}, "rm a path odek cannot resolve"},
		{"f() { ls; }; f; rm -rf usr", []Class{S, L}, "rm inside the working directory"},
		{"CDPATH=/ && cd usr && rm -rf bin", []Class{S, W}, "rm a path odek cannot resolve"},
		{"HOME=/ && rm -rf sub", []Class{S, W}, "rm a path odek cannot resolve"},
		{"X=/ && rm -rf sub", []Class{S, L}, "rm inside the working directory"},
		{`declare "$X"`, []Class{S, X}, "declare of a name computed at run time"},
		{"declare A=1", []Class{S}, "sets shell variables"},
		{"ls >&2", []Class{S}, "ls only reads"},
		{"ls 2>&-", []Class{S}, "ls only reads"},
		{"ls >&12", []Class{S}, "ls only reads"},
		{"ls >&/etc/x", []Class{S, W}, "redirects output outside"},
		{"ls >&1a", []Class{S, L}, "redirects output inside"},
		{"ls >&a1", []Class{S, L}, "redirects output inside"},
		{"ls <&3", []Class{S}, "ls only reads"},
	})
}

// git's and go's options and subcommands, interpreters and pip.
func TestDevToolsPinned(t *testing.T) {
	S, L, N, W, X, U := Safe, LocalWrite, NetworkEgress, SystemWrite, CodeExecution, Unknown
	checkPinned(t, fixture(t), []pinned{
		{"git", []Class{S}, "git without a subcommand"},
		{"git -C sub", []Class{S}, "git without a subcommand"},
		{"git -C sub status", []Class{S}, "git status"},
		{"git --no-pager -C sub status", []Class{S}, "git status"},
		{`git "$X" status`, []Class{U}, ""},
		{`git -c core.pager=less log`, []Class{S, X}, "git -c core.pager makes git run a program"},
		{`git -c "$K" log`, []Class{S, X}, "git -c"},
		{`git --exec-path=/x status`, []Class{S, X}, "git --exec-path=/x makes git run programs"},
		{"git config user.name x", []Class{L}, "git config"},
		{"git config core.pager less", []Class{X}, "git config"},
		{"git config --get core.pager", []Class{S}, "git config"},
		{"git clone https://x/y /etc/z", []Class{N, W}, "git clone writes outside"},
		{"git clone https://x/y z", []Class{L, N}, "git clone"},
		{"git clone https://x/y", []Class{N}, "git clone"},
		{"git fetch --upload-pack=x origin", []Class{X}, "git fetch"},
		{"git push --receive-pack=x origin", []Class{X}, "git push"},
		{"git archive --exec=x HEAD", []Class{X}, "git archive"},
		{"git status --upload-packs", []Class{X}, "git status"},
		{"go env -w GOFLAGS=x", []Class{W}, "go env"},
		{"go env -u GOFLAGS", []Class{W}, "go env"},
		{"go env GOPATH", []Class{S}, "go env"},
		{"go build -o /etc/x .", []Class{S, W}, "go build -o writes outside"},
		{"go build -o bin/x .", []Class{S, L}, "go build -o writes inside"},
		{"go vet -o /etc/x .", []Class{S}, "go vet"},
		{"go build -toolexec x .", []Class{X}, "go build"},
		{"python3 --version", []Class{S}, "python3 --version"},
		{"python3 -V", []Class{S}, "python3 -V"},
		{"python3 --version x.py", []Class{X}, "python3 runs a program"},
		{"python3 -m pip list", []Class{S}, "python3 -m pip"},
		{"python3 -m pip", []Class{U}, "python3 -m pip  is not a command"},
		{"python3 -u -m pip list", []Class{S}, "python3 -m pip list"},
		{"python3 -m venv pip", []Class{X}, "python3 runs a program"},
		{"python3 x.py -m pip", []Class{X}, "python3 runs a program"},
		{"python3 -m", []Class{X}, "python3 runs a program"},
		{`python3 "$M" pip list`, []Class{X}, "python3 runs a program"},
	})
}

// The go command takes -flag and --flag alike: go test -exec PROG and go
// build -toolexec PROG run PROG, as go vet -vettool does. They used to be
// safe or local_write (only --exec was seen; -toolexec read as -t -o lexec).
// And python3 script.py -m pip list runs script.py: -m counts only before the
// script (it used to be pip list, safe).
func TestProgramRunningFlags(t *testing.T) {
	c := fixture(t)
	for _, cmd := range []string{
		"go test -exec /tmp/evil ./...", "go run -exec=/tmp/evil .", "go build -toolexec /tmp/evil .",
		"go build -toolexec=/tmp/evil .", "go vet -vettool=/tmp/evil ./...", "go vet -vettool /tmp/evil .",
		"go build --toolexec /tmp/evil .", "go build -overlay o.json .", "go install -toolexec x ./cmd/y",
		"python3 evil.py -m pip list", "python3 -c 'import os' -m pip list", "python3 - -m pip list",
	} {
		if a := c.Shell(cmd); a.Class < CodeExecution {
			t.Errorf("Shell(%q) = %s (%s), want code_execution or worse", cmd, a.Class, a.Reason)
		}
	}
	for cmd, want := range map[string]Class{
		"go build -o=bin/x .": LocalWrite, "go build --o /etc/x .": SystemWrite, "go build -o": Safe,
		"go test -run X ./...": CodeExecution, "go vet ./...": Safe, "go env -w X=1": SystemWrite,
		"go env --u X": SystemWrite, "go build -- -toolexec": Safe,
	} {
		if a := c.Shell(cmd); a.Class != want {
			t.Errorf("Shell(%q) = %s (%s), want %s", cmd, a.Class, a.Reason, want)
		}
	}
	if testing.Short() {
		return
	}
	// The real go command runs the program given to -exec.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	files := map[string]string{
		"go.mod":  "module x\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() {}\n",
		"evil":    "#!/bin/sh\ntouch " + marker + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "run", "-exec", filepath.Join(dir, "evil"), ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run -exec: %v: %s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("go run -exec did not run the program (the attack this guards against)")
	}
}

// File programs: their operands, in-place flags and script commands.
func TestFileProgramsPinned(t *testing.T) {
	S, L, W, X, D := Safe, LocalWrite, SystemWrite, CodeExecution, Destructive
	checkPinned(t, fixture(t), []pinned{
		{"rm", []Class{L}, "rm deletes files"},
		{"rm x", []Class{L}, "rm inside the working directory"},
		{"rm /etc/x", []Class{W}, "rm outside the working directory"},
		{"mv", []Class{L}, "mv moves files"},
		{"mv a b", []Class{L}, "mv moves inside the working directory"},
		{"mv -t /etc a", []Class{L, W}, ""},
		{"chmod", []Class{L}, "chmod changes file modes"},
		{"chmod 644", []Class{L}, "chmod changes file modes"},
		{"chmod 644 /etc/x", []Class{W}, "chmod changes outside"},
		{"chmod --reference=a /etc/x", []Class{W}, "chmod changes outside"},
		{"chmod -R 644 /", []Class{D}, ""},
		{"chmod 644 /", []Class{W}, ""},
		{"sed s/a/b/ f", []Class{S}, "sed prints its edits"},
		{"sed -i s/a/b/ /etc/f", []Class{W}, "sed -i edits outside"},
		{"sed --in-place s/a/b/ /etc/f", []Class{W}, "sed -i edits outside"},
		{"sed -i.bak s/a/b/ /etc/f", []Class{W}, "sed -i edits outside"},
		{"sed -n -i s/a/b/ /etc/f", []Class{W}, "sed -i edits outside"},
		{"sed -e s/a/b/ -i /etc/f", []Class{W}, "sed -i edits outside"},
		{"sed -f x.sed f", []Class{S, X}, "sed -f runs a script"},
		{"sed '/a/{e}' f", []Class{S, X}, "the sed script runs shell commands"},
		{"sed '{p}e' f", []Class{S, X}, "the sed script runs shell commands"},
		{"sed 's/a/b/e' f", []Class{S, X}, "the sed script runs shell commands"},
		{"sed 's/a/b/w /tmp/x' f", []Class{S, W}, "the sed script writes"},
		{`sed 's/a\/e/b/' f`, []Class{S}, "sed prints its edits"},
		{`sed 's/a/e/' f`, []Class{S}, "sed prints its edits"},
		{`sed 's|a|b|e' f`, []Class{S, X}, "the sed script runs shell commands"},
		{`sed 's/a/b/' f`, []Class{S}, "sed prints its edits"},
		{`sed 'se' f`, []Class{S}, "sed prints its edits"},
		{"sed", []Class{S}, "sed prints its edits"},
		{"sed -ni s/a/b/ /etc/f", []Class{W}, "sed -i edits outside"},
		{"sed -e -i /etc/f", []Class{W}, "sed -i edits outside"}, // -i taken as -e's value still counts
		{"sed 's/x/ee/' f", []Class{S}, "sed prints its edits"},
		{"tar", []Class{S}, "tar lists an archive"},
		{"awk -i inplace '{print}' /etc/f", []Class{S, W}, ""},
		{"awk -i other '{print}' /etc/f", []Class{S}, ""},
		{"awk -f p.awk f", []Class{X}, "awk -f runs a program"},
		{"tar xzf a.tgz", []Class{L}, "tar extracts inside"},
		{"tar -xzf a.tgz -C /etc", []Class{W}, "tar extracts outside"},
		{"tar czf /etc/a.tgz .", []Class{W}, "tar writes an archive outside"},
		{"tar -czf - .", []Class{S}, "tar writes an archive to stdout"},
		{"tar tzf a.tgz", []Class{S}, "tar lists an archive"},
		{"tar -tzf a.tgz", []Class{S}, "tar lists an archive"},
		{"tar -I zstd -xf a.tar", []Class{L, X}, ""},
		{"shred x", []Class{L, D}, "shred destroys"},
		{"gofmt -w", []Class{L}, "gofmt rewrites files"},
		{"gofmt -w x.go", []Class{L}, "gofmt rewrites inside"},
		{"gofmt x.go", []Class{S}, "gofmt prints"},
	})
}

// Network and process programs.
func TestSysProgramsPinned(t *testing.T) {
	S, L, N, W, X, D := Safe, LocalWrite, NetworkEgress, SystemWrite, CodeExecution, Destructive
	checkPinned(t, fixture(t), []pinned{
		{"curl -o - https://x", []Class{N}, "curl reaches the network"},
		{"curl -o /etc/x https://x", []Class{N, W}, "curl writes outside"},
		{"curl -o out https://x", []Class{L, N}, "curl reaches the network"},
		{"curl -O https://x/f", []Class{L, N}, "curl reaches the network"},
		{"curl --output-dir /etc -O https://x/f", []Class{N, W}, "curl writes into outside"},
		{"curl -c /etc/jar https://x", []Class{N, W}, "curl writes outside"},
		{"rsync a host:b", []Class{N}, "rsync reaches host"},
		{"rsync a /etc/b", []Class{W}, "rsync writes outside"},
		{"rsync a ./b:c", []Class{L}, "rsync writes inside"},
		{"rsync a :b", []Class{L}, "rsync writes inside"},
		{"rsync host::mod b", []Class{L, N}, "rsync reaches host"},
		{"rsync rsync://host/m b", []Class{L, N}, "rsync reaches host"},
		{"rsync", []Class{N}, "rsync copies"},
		{"rsync a /etc/cron.d/x::y", []Class{W}, "rsync writes outside"},
		{"scp a ./x:y", []Class{L}, "scp writes inside"},
		{"rsync -e 'ssh -p 2' a host:b", []Class{N}, "rsync reaches host"},
		{"rsync -e 'sh -c x' a host:b", []Class{N, X}, "rsync runs a program"},
		{"rsync --delete a /etc/b", []Class{W}, "rsync writes outside"},
		{"ssh host", []Class{N}, "ssh reaches another host"},
		{"ssh", []Class{N}, "ssh reaches another host"},
		{"ssh host 'rm -rf /'", []Class{N, D}, "rm -r /"},
		{"ssh -o ProxyCommand=x host", []Class{N, X}, "ssh -o ProxyCommand=x runs a program here"},
		{"ssh -o proxyjump=x host", []Class{N, X}, "ssh -o proxyjump=x runs a program here"},
		{`ssh -o "$O" host`, []Class{N, X}, "ssh -o"},
		{"ssh -o Port=22 host", []Class{N}, "ssh reaches another host"},
		{"kill 123", []Class{W}, ""},
		{"kill -1 123", []Class{W}, ""},
		{"kill -9 -1", []Class{D}, "kill -1 signals every process"},
		{"kill -s KILL -1", []Class{D}, "kill -1 signals every process"},
		{"kill -l", []Class{S}, "kill -l lists signals"},
	})
}

// Path placement details: a glob's fixed prefix, an absolute path after an
// unknown cd, fd numbers, and a character device made outside /dev.
func TestPlacementPinned(t *testing.T) {
	S, L, N, W := Safe, LocalWrite, NetworkEgress, SystemWrite
	checkPinned(t, fixture(t), []pinned{
		{"rm /*", []Class{W}, "rm outside the working directory"},
		{"rm sub/*", []Class{L}, "rm inside the working directory"},
		{`cd "$X" && rm /etc/x`, []Class{S, W}, "rm outside the working directory"},
		{`cd "$X" && rm ~/x`, []Class{S, W}, "rm outside the working directory"},
		{"ls >&0", []Class{S}, "ls only reads"},
		{"ls >&9", []Class{S}, "ls only reads"},
		{"ls >&90", []Class{S}, "ls only reads"},
		{"curl https://x", []Class{N}, "curl reaches the network"},
		{"curl -T f https://x", []Class{N}, "curl reaches the network"},
	})
	c := fixture(t)
	dev := filepath.Join(c.Root(), "mynull")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("cannot make a device node: %v", err)
	}
	if a := c.Shell("echo x > mynull"); a.Class != LocalWrite {
		t.Errorf("a write to a character device in the workspace = %s (%s), want local_write", a.Class, a.Reason)
	}
}

func TestReasonDetails(t *testing.T) {
	a := Assessment{Class: Safe, Set: Of(Safe), Reason: "first"}.Merge(Assessment{Class: Safe, Set: Of(Safe), Reason: "second"})
	if a.Reason != "first" {
		t.Errorf("Merge of equal classes took reason %q, want the first", a.Reason)
	}
	for n, want := range map[int]int{79: 79, 80: 80, 81: 80} {
		if got := len(clip(strings.Repeat("a", n))); got != want {
			t.Errorf("len(clip(%d bytes)) = %d, want %d", n, got, want)
		}
	}
	for in, glob := range map[string]bool{"a,b}": false, "x{a,b}": true, "x{a..c}": true, "{ab}": false, `\*`: false, "a*": true, "~x": false} {
		if _, g := unquotedLit(in, false); g != glob {
			t.Errorf("unquotedLit(%q) glob = %v, want %v", in, g, glob)
		}
	}
	if _, g := unquotedLit("~x", true); !g {
		t.Error("a leading tilde is not special")
	}
}

func TestMatchRulesBounds(t *testing.T) {
	rs := rules(t, "ls *")
	if _, ok := MatchRules("ls 'open", rs); ok {
		t.Error("a command that does not parse matched")
	}
	if _, ok := MatchRules("", rs); ok {
		t.Error("the empty command matched")
	}
	pad := func(n int) string { return "ls " + strings.Repeat("a", n-3) }
	if _, ok := MatchRules(pad(maxCommandBytes), rs); !ok {
		t.Error("a command of exactly maxCommandBytes did not match")
	}
	if _, ok := MatchRules(pad(maxCommandBytes+1), rs); ok {
		t.Error("an over-long command matched")
	}
}
