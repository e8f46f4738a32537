package builtin

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// escape is one attack: cmd runs with {n} replaced by the row's name; a
// code-running vector runs ./p.sh {n}, which tries every way out.
type escape struct {
	name, cmd string
	needs     string // a program the row needs; the row skips without it
}

// escapes are the attacks of issue 19 — commands the classifier rated safe
// or local_write that ran code, wrote outside, connected out, read secrets —
// and more of our own.
var escapes = []escape{
	{name: "git-grep-pager", cmd: `git init -q . && git add a && git grep --open-files-in-pager='bash ./p.sh {n}' -e a`, needs: "git"},
	{name: "diff3-program", cmd: `printf '#!/bin/sh\nbash ./p.sh {n}\n' > d.sh && chmod +x d.sh && diff3 --diff-program=./d.sh a a a`, needs: "diff3"},
	{name: "rg-pre", cmd: `printf '#!/bin/sh\nbash ./p.sh {n}\n' > r.sh && chmod +x r.sh && rg --pre ./r.sh a .`, needs: "rg"},
	{name: "zip-TT", cmd: `zip -q -T -TT 'bash ./p.sh {n} #' z.zip a`, needs: "zip"},
	{name: "let-subscript", cmd: `x='y[$(bash ./p.sh {n})]'; let "$x"`},
	{name: "mapfile-callback", cmd: `printf 'l\n' | mapfile -C 'bash ./p.sh {n} #' -c 1 arr`},
	{name: "declare-array", cmd: `declare -a "arr=(\$(bash ./p.sh {n}))"`},
	{name: "git-fsmonitor", cmd: `git init -q . && git config core.fsmonitor 'bash ./p.sh {n} #' && git status`, needs: "git"},
	{name: "git-hook", cmd: `git init -q . && printf '#!/bin/sh\nbash ./p.sh {n}\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && git commit -q --allow-empty -m x`, needs: "git"},
	{name: "uniq-out", cmd: `uniq a "$OUT/{n}"`},
	{name: "shuf-o", cmd: `shuf -o "$OUT/{n}" a`},
	{name: "git-log-output", cmd: `git init -q . && git add a && git commit -q -m x && git log --output="$OUT/{n}"`, needs: "git"},
	{name: "history-w", cmd: `set -o history; history -s x; history -w "$OUT/{n}"`},
	{name: "git-config-global", cmd: `git config --global core.pager 'bash ./p.sh {n}'`, needs: "git"},
	{name: "hardlink-append", cmd: `ln "$OUT/target" link; echo pwned >> link`},
	{name: "symlink-write", cmd: `ln -s "$OUT/{n}" sym; echo pwned > sym`},
	{name: "mv-out", cmd: `cp a b && mv b "$OUT/{n}"`},
	{name: "dev-tcp", cmd: `cat < /dev/tcp/127.0.0.1/$TCP`},
	{name: "dev-udp", cmd: `echo {n} > /dev/udp/127.0.0.1/$UDP`},
	{name: "python-udp", cmd: `python3 -c 'import os,socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"{n}", ("127.0.0.1", int(os.environ["UDP"])))'`, needs: "python3"},
	{name: "python-tcp6", cmd: `python3 -c 'import os,socket; socket.create_connection(("127.0.0.1", int(os.environ["TCP"])))'`, needs: "python3"},
	{name: "cat-ssh", cmd: `cat ~/.ssh/id_rsa`},
	{name: "cat-aws", cmd: `cat ~/.aws/credentials`},
	{name: "cat-netrc", cmd: `cat ~/.netrc`},
	{name: "odek-secrets", cmd: `cat "$ODEK_HOME/secrets.env"`},
	{name: "ssh-authorized-keys", cmd: `echo key >> ~/.ssh/authorized_keys && cp ~/.ssh/authorized_keys "$OUT/{n}"`},
	{name: "odek-environ", cmd: `tr '\0' '\n' < /proc/$ODEK_PID/environ | grep -q PATH= && echo {n} > "$WS/leak-{n}" && cat ~/.ssh/id_rsa`},
	{name: "signal-odek", cmd: `kill -USR1 $ODEK_PID`},
	{name: "touch-tmp", cmd: `touch "$OUT/{n}"`},
	{name: "payload-direct", cmd: `bash ./p.sh {n}`},
}

// TestSandboxEscapes runs every attack against the real sandbox: each must
// fail to write outside, read a protected file, connect (TCP or UDP to the
// test's own listeners) or signal odek. No policy is in the way: the shell
// tool runs each command as if every class were allowed.
func TestSandboxEscapes(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	for _, e := range escapes {
		t.Run(e.name, func(t *testing.T) {
			if e.needs != "" {
				if _, err := exec.LookPath(e.needs); err != nil {
					t.Skipf("%s is not installed", e.needs)
				}
			}
			j := newJail(t, true, nil)
			out := j.run(strings.ReplaceAll(e.cmd, "{n}", e.name), 30)
			if b := j.breaches(e.name, out); len(b) > 0 {
				t.Errorf("escaped the sandbox: %s\noutput:\n%s", strings.Join(b, "; "), out)
			}
		})
	}
}

// TestSandboxEscapesControl runs the same attacks without the sandbox and
// requires each to get out: the breach checks above see real escapes, and
// the sandbox is what stops them. (Set ODEK_TEST_SKIP_CONTROL=1 to skip.)
func TestSandboxEscapesControl(t *testing.T) {
	// Not parallel: its attacks do signal this process (SIGUSR1), which
	// every jail watches, so a sandboxed test beside it would see a breach.
	if os.Getenv("ODEK_TEST_SKIP_CONTROL") != "" {
		t.Skip("ODEK_TEST_SKIP_CONTROL is set")
	}
	for _, e := range escapes {
		t.Run(e.name, func(t *testing.T) {
			if e.needs != "" {
				if _, err := exec.LookPath(e.needs); err != nil {
					t.Skipf("%s is not installed", e.needs)
				}
			}
			j := newJail(t, false, nil)
			out := j.run(strings.ReplaceAll(e.cmd, "{n}", e.name), 30)
			if b := j.breaches(e.name, out); len(b) == 0 {
				t.Errorf("without the sandbox the attack did not get out, so the test proves nothing\noutput:\n%s", out)
			}
		})
	}
}

// TestSandboxDropsPrivileges: a sandboxed command has no_new_privs, no
// capability (not even as root: effective, permitted and bounding sets are
// empty) and a seccomp filter, so setuid programs, sudo and a root
// process's capabilities (modules, raw I/O, mounts, DAC override) are gone.
func TestSandboxDropsPrivileges(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	j := newJail(t, true, nil)
	out := j.run(`grep -E '^(NoNewPrivs|CapInh|CapPrm|CapEff|CapBnd|CapAmb|Seccomp):' /proc/self/status`, 30)
	wants := []string{"NoNewPrivs:\t1", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000",
		"CapAmb:\t0000000000000000", "Seccomp:\t2"}
	if os.Getuid() == 0 {
		// Only root can empty the bounding set (CAP_SETPCAP); for anyone
		// else no_new_privs is what keeps an exec from gaining one.
		wants = append(wants, "CapBnd:\t0000000000000000")
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
}
