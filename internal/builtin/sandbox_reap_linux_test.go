package builtin

import (
	"strings"
	"testing"
)

// leavers start processes meant to outlive the call, each writing its pid
// to a file in the workspace before it sleeps.
const leavers = `set -m; sleep 300 & echo $! > setm.pid; set +m
setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' &
( ( sh -c 'echo $$ > double.pid; exec sleep 300' & ) & )
nohup sh -c 'echo $$ > nohup.pid; exec sleep 300' >/dev/null 2>&1 &
python3 -c 'import os,time
if os.fork(): os._exit(0)
os.setsid()
if os.fork(): os._exit(0)
open("daemon.pid","w").write(str(os.getpid())); time.sleep(300)' &
for f in setm setsid double nohup daemon; do while [ ! -s $f.pid ]; do sleep 0.01; done; done
`

var leaverPids = []string{"setm.pid", "setsid.pid", "double.pid", "nohup.pid", "daemon.pid"}

// TestNoDescendantSurvives: when a shell call ends — normally or at its
// timeout — nothing it started is left, however it left the process group:
// checked by pid. The timeout message says every process was killed only
// because the launcher saw them gone.
func TestNoDescendantSurvives(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	for _, tc := range []struct {
		name, tail string
		timeout    int
		want       string
	}{
		{"exit", "echo started", 60, "exit code: 0"},
		{"timeout", "sleep 300", 10, "timed out after 10s; the command and every process it started were killed"},
		// The command kills its launcher (the parent of bash) to orphan its
		// tree, by pid and by each thread id: the launcher has no thread in
		// the command's domain, so scoping refuses both.
		{"kill-launcher", "kill -9 $PPID; python3 -c 'import ctypes,os,platform,sys; p=int(sys.argv[1]); " +
			"nr=234 if platform.machine()==\"x86_64\" else 131; " +
			"[ctypes.CDLL(None).syscall(nr, p, int(t), 9) for t in os.listdir(\"/proc/%d/task\" % p)]' $PPID; echo survived", 60, "survived"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := newJail(t, true, nil)
			out := j.run(leavers+tc.tail, tc.timeout)
			if !strings.Contains(out, tc.want) {
				t.Fatalf("want %q in:\n%s", tc.want, out)
			}
			for i, pid := range readPids(t, j.ws, leaverPids...) {
				if alive(pid) {
					t.Errorf("%s: pid %d survived the call", leaverPids[i], pid)
				}
			}
		})
	}
}

// TestDescendantsSurviveWithoutLauncher is the control: without the
// sandbox launcher (odek before issue 19 killed the process group only),
// setsid, set -m and double-forked processes outlive the call, and the
// timeout message does not claim otherwise.
func TestDescendantsSurviveWithoutLauncher(t *testing.T) {
	t.Parallel()
	j := newJail(t, false, nil)
	out := j.run(leavers+"sleep 300", 10)
	if strings.Contains(out, "every process it started were killed") {
		t.Errorf("without the launcher the message claims every process was killed:\n%s", out)
	}
	survivors := 0
	for _, pid := range readPids(t, j.ws, leaverPids...) {
		if alive(pid) {
			survivors++
			_ = killPid(pid)
		}
	}
	if survivors == 0 {
		t.Error("no process outlived the call without the launcher: the test above proves nothing")
	}
}
