//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// probeArg makes the test binary a probe (TestMain): a target that makes
// the system calls its arguments name, one "op" or "op:arg" each, and
// prints a line "op result" per op, the result being ok, an errno's name
// (EPERM) or what the op reports. The promises of the filter, the
// capabilities, Landlock's file rules and the launcher's reaping are
// checked by what a confined process really gets from the kernel, not by
// inspecting the filter's table: the same probe runs unconfined as the
// control, and a refusal counts only where the control was not refused
// alike (a kernel without io_uring refuses it by itself).
const probeArg = "__sandbox-test-probe"

// probeOp is one operation of the probe; arg is what follows the colon.
type probeOp func(arg string) string

// probeOps are every op, the architecture's own (legacy calls, int 0x80)
// added by probeArchOps.
var probeOps = map[string]probeOp{}

func init() {
	for _, m := range []map[string]probeOp{probeProcessOps, probeFileOps, probeMetaOps, probeTreeOps, probeArchOps, probeHolderOps} {
		for name, op := range m {
			probeOps[name] = op
		}
	}
}

// probeEntry runs the probe when args (os.Args) start one.
func probeEntry(args []string) (int, bool) {
	if len(args) > 1 && args[1] == probeArg {
		return probeMain(args[2:]), true
	}
	return 0, false
}

// probeMain runs the probe: each op in turn, its line flushed before the
// next runs (an op may end the process: int 0x80 is killed).
func probeMain(ops []string) int {
	w := bufio.NewWriter(os.Stdout)
	for _, o := range ops {
		name, arg, _ := strings.Cut(o, ":")
		res := "unknown-op"
		if op, ok := probeOps[name]; ok {
			res = op(arg)
		}
		fmt.Fprintf(w, "%s %s\n", o, res)
		_ = w.Flush()
	}
	return 0
}

// result is "ok" or the errno's name.
func result(err error) string {
	if err == nil {
		return "ok"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name := unix.ErrnoName(errno); name != "" {
			return name
		}
		return "errno" + strconv.Itoa(int(errno))
	}
	return "error"
}

// errOf turns a raw system call's results into result's input.
func errOf(_, _ uintptr, e syscall.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}

// fdOf is a raw call that returns a descriptor: closed, and its error.
func fdOf(fd uintptr, _ uintptr, e syscall.Errno) error {
	if e != 0 {
		return e
	}
	_ = unix.Close(int(fd))
	return nil
}

// cstr is s as a NUL-terminated string the kernel can read.
func cstr(s string) *byte {
	p, err := unix.BytePtrFromString(s)
	if err != nil {
		panic(err)
	}
	return p
}

// probeFileOps are what Landlock decides: reading and writing real files.
// A path op's arg is the path; rename, link and symlink take "from|to".
var probeFileOps = map[string]probeOp{
	"read": func(p string) string {
		f, err := os.Open(p)
		if err != nil {
			return result(err)
		}
		defer f.Close()
		_, err = f.Read(make([]byte, 1))
		if err != nil && err != io.EOF {
			return result(err)
		}
		return "ok"
	},
	// open: opened for reading, not read (a device may block).
	"open": func(p string) string {
		return result(fdOfErr(unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)))
	},
	"list": func(p string) string {
		f, err := os.Open(p)
		if err != nil {
			return result(err)
		}
		defer f.Close()
		_, err = f.Readdirnames(-1)
		return result(err)
	},
	"create": func(p string) string {
		return result(fdOfErr(unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)))
	},
	"append": func(p string) string {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return result(err)
		}
		defer f.Close()
		_, err = f.WriteString("x")
		return result(err)
	},
	"trunc":  func(p string) string { return result(unix.Truncate(p, 0)) },
	"mkdir":  func(p string) string { return result(unix.Mkdir(p, 0o755)) },
	"rmdir":  func(p string) string { return result(unix.Rmdir(p)) },
	"unlink": func(p string) string { return result(unix.Unlink(p)) },
	"mkfifo": func(p string) string { return result(unix.Mkfifo(p, 0o644)) },
	"rename": func(a string) string { from, to, _ := strings.Cut(a, "|"); return result(unix.Rename(from, to)) },
	"link":   func(a string) string { from, to, _ := strings.Cut(a, "|"); return result(unix.Link(from, to)) },
	"symlink": func(a string) string {
		target, link, _ := strings.Cut(a, "|")
		return result(unix.Symlink(target, link))
	},
}

func fdOfErr(fd int, err error) error {
	if err == nil {
		_ = unix.Close(fd)
	}
	return err
}

// probeRun runs the probe with ops under p through the launcher and
// returns its exit code and each op's result.
func probeRun(t *testing.T, p Policy, ops ...string) (int, map[string]string) {
	t.Helper()
	code, status, out := launch(t, p, probeExe(t), append([]string{probeArg}, ops...)...)
	if code == 125 {
		t.Fatalf("the launcher could not start the probe: %s%s", status, out)
	}
	return code, probeResults(out)
}

// probeControl runs the probe unconfined, as a process of its own group.
func probeControl(t *testing.T, ops ...string) map[string]string {
	t.Helper()
	cmd := exec.Command(probeExe(t), append([]string{probeArg}, ops...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the control probe: %v\n%s", err, out.String())
	}
	return probeResults(out.String())
}

// probeControlCode runs the probe unconfined and returns its output,
// whatever its exit (an op may end it).
func probeControlCode(t *testing.T, ops ...string) string {
	t.Helper()
	cmd := exec.Command(probeExe(t), append([]string{probeArg}, ops...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, _ := cmd.Output()
	return string(out)
}

func probeResults(out string) map[string]string {
	res := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if op, r, ok := strings.Cut(line, " "); ok {
			res[op] = r
		}
	}
	return res
}

func probeExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// probeCase is one op and what a confined process must get from it.
type probeCase struct {
	op   string
	want string // "ok", an errno's name, or "denied" (any error)
}

// checkProbe runs cases under p and unconfined. A case wanting a refusal
// counts only when the control was not refused alike (the kernel lacks
// the call, or the user the right): it is then skipped, and said so. A
// case wanting ok needs an ok control too.
func checkProbe(t *testing.T, p Policy, cases []probeCase) {
	t.Helper()
	checkProbeWith(t, p, cases, nil)
}

// checkProbeWith is checkProbe with reset (if any) run between the
// control and the confined run.
func checkProbeWith(t *testing.T, p Policy, cases []probeCase, reset func()) {
	t.Helper()
	ops := make([]string, len(cases))
	for i, c := range cases {
		ops[i] = c.op
	}
	control := probeControl(t, ops...)
	if reset != nil {
		reset()
	}
	_, got := probeRun(t, p, ops...)
	for _, c := range cases {
		ctl, res := control[c.op], got[c.op]
		refused := func(r string) bool { return r != "ok" && (c.want == "denied" || r == c.want) }
		switch {
		case c.want != "ok" && refused(ctl):
			t.Logf("%s: the control got %s too; not a check of the sandbox here", c.op, ctl)
		case c.want == "ok" && ctl != "ok":
			t.Logf("%s: the control got %s; not a check of the sandbox here", c.op, ctl)
		case c.want == "ok" && res != "ok":
			t.Errorf("%s: confined %q, want ok (control ok)", c.op, res)
		case c.want != "ok" && !refused(res):
			t.Errorf("%s: confined %q, want %s (control %s)", c.op, res, c.want, ctl)
		}
	}
}

// runBPF runs a classic BPF seccomp program on one call, as the kernel
// does, and returns its action.
func runBPF(t *testing.T, prog []unix.SockFilter, arch, nr uint32, args [6]uint64) uint32 {
	t.Helper()
	var data [64]byte
	binary.LittleEndian.PutUint32(data[offNr:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[offArg0+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		jump := func(cond bool) {
			if cond {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		}
		switch in.Code {
		case bpfLdAbs:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case bpfJeq:
			jump(acc == in.K)
		case bpfJge:
			jump(acc >= in.K)
		case bpfJset:
			jump(acc&in.K != 0)
		case bpfRet:
			return in.K
		default:
			t.Fatalf("instruction %d: code %#x the interpreter does not know", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}
