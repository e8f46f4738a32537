package builtin

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/sandbox"
)

// secret is the content of every protected file the fixture plants.
const secret = "SECRET-7f3a9c-do-not-leak"

// jail is a sandboxed shell over a fake home: home/ws is the workspace,
// outside/ the place nothing may be written, home/.ssh, home/.aws and the
// odek home hold secrets; TCP and UDP listeners on 127.0.0.1 record who
// reached them, and SIGUSR1 to the test process (odek here) is watched.
type jail struct {
	t                  *testing.T
	home, ws, out, tmp string
	odekHome           string
	shell              Tool
	tcpPort, udpPort   int
	mu                 sync.Mutex
	tcpConns           int
	got                []string       // lines and datagrams the listeners received
	sigs               chan os.Signal // SIGUSR1 (an attack) and SIGUSR2 (signalled)
	early              bool           // a SIGUSR1 drained before the command ran
	recorded           chan struct{}  // the listeners recorded a line or a connection
	sentinels          int
}

// needLandlock skips where the kernel cannot hold every promise.
func needLandlock(t *testing.T) {
	t.Helper()
	if m := sandbox.Probe().Missing(false); len(m) > 0 {
		t.Skipf("the kernel cannot hold the sandbox: missing %s", strings.Join(m, "; "))
	}
}

// newJail builds the fixture; sandboxed false runs the same shell without
// the sandbox (the control that shows each attack works without it).
func newJail(t *testing.T, sandboxed bool, tweak func(*sandbox.Policy)) *jail {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	j := &jail{t: t, home: filepath.Join(root, "home"), out: filepath.Join(root, "outside"), tmp: filepath.Join(root, "tmp")}
	j.ws, j.odekHome = filepath.Join(j.home, "ws"), filepath.Join(j.home, ".odek")
	for _, d := range []string{j.ws, j.out, j.tmp, filepath.Join(j.home, ".ssh"), filepath.Join(j.home, ".aws"), j.odekHome} {
		mustMkdir(t, d)
	}
	for _, f := range []string{".ssh/id_rsa", ".aws/credentials", ".odek/secrets.env", ".netrc"} {
		mustWrite(t, filepath.Join(j.home, f), secret+"\n")
	}
	mustWrite(t, filepath.Join(j.out, "target"), "orig\n")
	mustWrite(t, filepath.Join(j.ws, "a"), "a\nb\n")
	mustWrite(t, filepath.Join(j.ws, "p.sh"), payload)
	j.recorded = make(chan struct{}, 1)
	j.listen()
	j.sigs = make(chan os.Signal, 8)
	signal.Notify(j.sigs, syscall.SIGUSR1, syscall.SIGUSR2)
	t.Cleanup(func() { signal.Stop(j.sigs) })
	cls, err := risk.New(risk.Options{Dir: j.ws, Home: j.home})
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + j.home, "TMPDIR=" + j.tmp, "LANG=C",
		"WS=" + j.ws, "OUT=" + j.out, "ODEK_HOME=" + j.odekHome,
		"TCP=" + strconv.Itoa(j.tcpPort), "UDP=" + strconv.Itoa(j.udpPort), "ODEK_PID=" + strconv.Itoa(os.Getpid()),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		// A race-enabled launcher (this test binary) sleeps 1 s at exit
		// unless told not to; the commands ignore the variable.
		"GORACE=atexit_sleep_ms=0"}
	o := Options{Classifier: cls, Env: env}
	if sandboxed {
		p := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Workspace: j.ws, TempDir: j.tmp, Landlock: true,
			Protected: sandbox.DefaultProtected(j.home, j.odekHome)}
		if tweak != nil {
			tweak(p)
		}
		if warns, err := p.Prepare(); err != nil || len(warns) > 0 {
			t.Fatalf("sandbox policy: %v %q", err, warns)
		}
		o.Sandbox = p
	}
	for _, tl := range New(o) {
		if tl.Name() == "shell" {
			j.shell = tl
		}
	}
	return j
}

// payload is what every code-running vector runs: it tries each way out
// and names itself ($1) in whatever gets through.
const payload = `#!/bin/bash
n=$1
echo "$n" > "$OUT/$n"
cat "$HOME/.ssh/id_rsa" "$ODEK_HOME/secrets.env" > "$WS/leak-$n"
(exec 3<>"/dev/tcp/127.0.0.1/$TCP" && echo "$n" >&3)
echo "$n" > "/dev/udp/127.0.0.1/$UDP"
kill -USR1 "$ODEK_PID"
exit 0
`

func (j *jail) listen() {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		j.t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		j.t.Fatal(err)
	}
	j.t.Cleanup(func() { ln.Close(); pc.Close() })
	j.tcpPort, j.udpPort = ln.Addr().(*net.TCPAddr).Port, pc.LocalAddr().(*net.UDPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			j.mu.Lock()
			j.tcpConns++
			j.mu.Unlock()
			j.wake()
			go func() {
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
				if line, err := bufio.NewReader(c).ReadString('\n'); err == nil {
					j.record(strings.TrimSpace(line))
				}
			}()
		}
	}()
	go func() {
		buf := make([]byte, 512)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			j.record("udp:" + strings.TrimSpace(string(buf[:n])))
		}
	}()
}

func (j *jail) record(s string) {
	j.mu.Lock()
	j.got = append(j.got, s)
	j.mu.Unlock()
	j.wake()
}

// wake tells settle that the listeners recorded something.
func (j *jail) wake() {
	select {
	case j.recorded <- struct{}{}:
	default:
	}
}

// settle sends each listener a sentinel of its own after a command and
// waits until both are seen: the TCP listener accepts in order and UDP
// datagrams to one socket are read in order, so whatever the attack sent
// before is recorded by then, however slow the machine. The sentinels
// are then taken out again.
func (j *jail) settle() {
	j.sentinels++
	tok := "sentinel-" + strconv.Itoa(j.sentinels)
	j.mu.Lock()
	conns := j.tcpConns
	j.mu.Unlock()
	tc, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(j.tcpPort))
	if err != nil {
		j.t.Fatal(err)
	}
	defer tc.Close()
	uc, err := net.Dial("udp4", "127.0.0.1:"+strconv.Itoa(j.udpPort))
	if err != nil {
		j.t.Fatal(err)
	}
	defer uc.Close()
	if _, err := uc.Write([]byte(tok)); err != nil {
		j.t.Fatal(err)
	}
	timeout := time.After(10 * time.Second)
	for {
		j.mu.Lock()
		i := slices.Index(j.got, "udp:"+tok)
		if i >= 0 && j.tcpConns > conns {
			j.got = slices.Delete(j.got, i, i+1)
			j.tcpConns--
			j.mu.Unlock()
			return
		}
		j.mu.Unlock()
		select {
		case <-j.recorded:
		case <-timeout:
			j.t.Fatal("the listeners did not see their own sentinels within 10 s")
		}
	}
}

// run runs one command through the shell tool, as the loop would with the
// call approved at its class (every class allowed).
func (j *jail) run(cmd string, timeout int) string {
	j.t.Helper()
	args, _ := json.Marshal(map[string]any{"command": "cd " + j.ws + " && " + cmd, "description": "attack", "timeout": timeout})
	a, err := j.shell.AssessRisk(args)
	if err != nil {
		j.t.Fatal(err)
	}
	j.drainSignals()
	out, err := j.shell.Call(risk.WithApproved(context.Background(), a), args)
	if err != nil {
		out += "\nerror: " + err.Error()
	}
	return out
}

// breaches lists how the attack named n got out, given its output.
func (j *jail) breaches(n, out string) []string {
	j.settle()
	var b []string
	if _, err := os.Stat(filepath.Join(j.out, n)); err == nil {
		b = append(b, "wrote outside the workspace")
	}
	if data, _ := os.ReadFile(filepath.Join(j.ws, "leak-"+n)); strings.Contains(string(data), secret) {
		b = append(b, "read a protected file (copied into the workspace)")
	}
	if strings.Contains(out, secret) {
		b = append(b, "read a protected file (in its output)")
	}
	if data, _ := os.ReadFile(filepath.Join(j.out, "target")); string(data) != "orig\n" {
		b = append(b, "changed a file outside through a link")
	}
	if _, err := os.Stat(filepath.Join(j.home, ".gitconfig")); err == nil {
		b = append(b, "wrote ~/.gitconfig")
	}
	j.mu.Lock()
	for _, g := range j.got {
		if g == n || g == "udp:"+n || n == "" {
			b = append(b, "reached a listener: "+g)
		}
	}
	if j.tcpConns > 0 {
		b = append(b, strconv.Itoa(j.tcpConns)+" TCP connection(s) to the listener")
	}
	j.tcpConns, j.got = 0, nil
	j.mu.Unlock()
	if j.signalled() {
		b = append(b, "signalled odek (SIGUSR1)")
	}
	return b
}

// drainSignals takes what reached this process before a command runs:
// other jails' SIGUSR2s (parallel tests), which would end signalled's read
// early, and any SIGUSR1, which still counts.
func (j *jail) drainSignals() {
	for {
		select {
		case s := <-j.sigs:
			j.early = j.early || s == syscall.SIGUSR1
		default:
			return
		}
	}
}

// signalled reports whether a SIGUSR1 reached this process. A signal the
// attack sent came before the SIGUSR2 sent here now, its command having
// exited: Go hands the two on in that order (and the lower number first
// when both are pending), so reading up to the SIGUSR2 sees it without a
// guess at how long a busy machine takes to pass a signal on.
func (j *jail) signalled() bool {
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
		j.t.Fatal(err)
	}
	got := j.early
	j.early = false
	timeout := time.After(10 * time.Second)
	for {
		select {
		case s := <-j.sigs:
			if s == syscall.SIGUSR2 {
				return got
			}
			got = true
		case <-timeout:
			j.t.Fatal("this process's own SIGUSR2 did not arrive within 10 s")
		}
	}
}

// alive reports whether pid runs (a zombie does not count).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

func readPids(t *testing.T, dir string, names ...string) []int {
	t.Helper()
	var pids []int
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("%s: %q", n, b)
		}
		pids = append(pids, pid)
	}
	return pids
}

func mustMkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
		t.Fatal(err)
	}
}

func killPid(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
