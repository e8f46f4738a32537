//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// probeTreeOps make a process tree and end the probe in set ways.
var probeTreeOps = map[string]probeOp{
	// spawn:M starts three descendants that hold (below), each with M in
	// its argv: a child, a setsid child (a session of its own, as a
	// daemon makes) and a grandchild whose parent exits (a double fork:
	// it is orphaned at once). It returns once all three say they are up.
	"spawn": func(marker string) string {
		r, w, err := os.Pipe()
		if err != nil {
			return result(err)
		}
		defer r.Close()
		start := func(setsid bool, op string) error {
			cmd := exec.Command(probeSelf(), probeArg, op+":"+marker)
			cmd.Stdout = w
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
			if err := cmd.Start(); err != nil {
				return err
			}
			if op == "fork" {
				return cmd.Wait() // the grandchild's parent is gone
			}
			return nil
		}
		for _, s := range []struct {
			setsid bool
			op     string
		}{{false, "hold"}, {true, "hold"}, {false, "fork"}} {
			if err := start(s.setsid, s.op); err != nil {
				w.Close()
				return result(err)
			}
		}
		w.Close()
		br := bufio.NewReader(r)
		for range 3 {
			if line, err := br.ReadString('\n'); err != nil || !strings.HasSuffix(line, " up\n") {
				return "not-up"
			}
		}
		return "ok"
	},
	// fork:M starts a holder and exits once it is up.
	"fork": func(marker string) string {
		r, w, err := os.Pipe()
		if err != nil {
			return result(err)
		}
		cmd := exec.Command(probeSelf(), probeArg, "hold:"+marker)
		cmd.Stdout = w
		if err := cmd.Start(); err != nil {
			return result(err)
		}
		w.Close()
		line, _ := bufio.NewReader(r).ReadString('\n')
		os.Stdout.WriteString(line) // the holder's "up", passed on
		os.Exit(0)
		return ""
	},
	// hold:M says it is up and waits for a signal, forever.
	"hold": func(marker string) string {
		os.Stdout.WriteString("hold:" + marker + " up\n")
		for {
			_ = unix.Pause()
		}
	},
	// env:NAME is NAME's value, or "unset".
	"env": func(name string) string {
		if v, ok := os.LookupEnv(name); ok {
			return v
		}
		return "unset"
	},
	"exit": func(code string) string {
		n, _ := strconv.Atoi(code)
		os.Exit(n)
		return ""
	},
	// killself:N ends the probe by signal N.
	"killself": func(sig string) string {
		n, _ := strconv.Atoi(sig)
		_ = unix.Kill(os.Getpid(), unix.Signal(n))
		for {
			_ = unix.Pause()
		}
	},
}

// probeSelf is the probe's own executable.
func probeSelf() string {
	exe, err := os.Executable()
	if err != nil {
		return "/proc/self/exe"
	}
	return exe
}

// withMarker lists the processes whose argv holds marker.
func withMarker(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), marker) {
			out = append(out, pid)
		}
	}
	return out
}
