package risk

import (
	"strings"
	"sync"
)

// registerWrappers adds the programs that run another command: the wrapped
// command is classified as if it ran alone, and the wrapper adds its own
// class (sudo: system_write).
func registerWrappers() {
	register(privileged("ugCDhprtUT", "user group close-from chdir host prompt role type other-user command-timeout"), "sudo")
	register(privileged("uC", "user config"), "doas")
	register(privileged("u", "user"), "pkexec")
	register(suProg, "su", "runuser")
	register(envProg, "env")
	register(wrapper("n", "adjustment"), "nice")
	register(wrapper("", ""), "nohup", "setsid", "unbuffer", "catchsegv", "caffeinate")
	register(timeoutProg, "timeout", "gtimeout")
	register(wrapper("fo", "format output"), "time")
	register(wrapper("ioe", "input output error"), "stdbuf")
	register(wrapper("cnp", "class classdata pid"), "ionice")
	register(chrtProg, "chrt")
	register(tasksetProg, "taskset")
	register(flockProg, "flock")
	register(watchProg, "watch")
	register(wrapper("oepsuEIaXbS", "output expr attach signal user env"), "strace", "ltrace")
	register(chrootProg, "chroot")
	register(nsProg, "unshare", "nsenter")
	register(func(w *walker, name string, args []arg) { w.run(args) }, "busybox", "toybox")
	register(commandProg, "command", "builtin")
	register(execProg, "exec")
	register(evalProg, "eval")
	register(trapProg, "trap")
	register(xargsProg, "xargs")
	register(findProg, "find")
	register(shellProg, "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "rbash")
	register(scriptProg, "script")
	register(cdProg, "cd", "pushd")
	register(func(w *walker, name string, args []arg) {
		w.cwd = ""
		w.add(Safe, "popd changes directory")
	}, "popd")
}

// wrapper runs the command after its options.
func wrapper(shortVal, longVal string) handler {
	return func(w *walker, name string, args []arg) {
		i := commandStart(args, shortVal, longVal)
		if i >= len(args) {
			w.add(Safe, name+" without a command")
			return
		}
		w.run(args[i:])
	}
}

// privileged runs the command as another user: system_write at least; a
// bare root shell is code_execution.
func privileged(shortVal, longVal string) handler {
	inner := wrapper(shortVal, longVal)
	return func(w *walker, name string, args []arg) {
		w.add(SystemWrite, name+" runs with other privileges")
		i := commandStart(args, shortVal, longVal)
		if i >= len(args) {
			o := parseOpts(args, shortVal, longVal)
			if o.has("s", "i", "shell", "login") {
				w.add(CodeExecution, name+" opens a root shell")
			}
			return
		}
		inner(w, name, args)
	}
}

// suProg: su [-] [user] [-c CMD]; without -c it opens a shell.
func suProg(w *walker, name string, args []arg) {
	w.add(SystemWrite, name+" runs as another user")
	o := parseOpts(args, "cgGsw", "command group supp-group shell whitelist-environment")
	if c, ok := o.val("c", "command"); ok {
		w.nested(c)
		return
	}
	w.add(CodeExecution, name+" opens a shell")
}

// envProg: env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… [CMD…].
func envProg(w *walker, name string, args []arg) {
	i := commandStart(args, "uCS", "unset chdir split-string")
	o := parseOpts(args[:i], "uCS", "unset chdir split-string")
	if s, ok := o.val("S", "split-string"); ok {
		rest, static := joined(args[i:])
		w.nested(arg{s: s.s + " " + rest, static: s.static && static})
		return
	}
	for i < len(args) && args[i].static && isAssignmentWord(args[i].s) {
		n, _, _ := strings.Cut(args[i].s, "=")
		if execVar(n) {
			w.add(CodeExecution, "env sets "+n+", which changes what programs run")
		}
		i++
	}
	if i < len(args) && !args[i].static && strings.Contains(args[i].s, "=") {
		w.add(CodeExecution, "env sets a variable computed at run time")
	}
	if i >= len(args) {
		w.add(Safe, "env prints the environment")
		return
	}
	if d, ok := o.val("C", "chdir"); ok {
		defer w.restore(w.cwd)
		w.chdir(d)
	}
	w.run(args[i:])
}

func isAssignmentWord(s string) bool {
	n, _, ok := strings.Cut(s, "=")
	if !ok || n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !isNameByte(n[i]) || (i == 0 && n[i] >= '0' && n[i] <= '9') {
			return false
		}
	}
	return true
}

// timeoutProg: timeout [opts] DURATION CMD…
func timeoutProg(w *walker, name string, args []arg) {
	i := commandStart(args, "sk", "signal kill-after")
	if i+1 >= len(args) {
		w.add(Safe, name+" without a command")
		return
	}
	w.run(args[i+1:])
}

// chrtProg: chrt [opts] PRIORITY CMD… (or -p PID).
func chrtProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "TPD", "sched-runtime sched-period sched-deadline")
	if o.has("p", "pid") {
		w.add(SystemWrite, "chrt changes another process")
		return
	}
	i := commandStart(args, "TPD", "sched-runtime sched-period sched-deadline")
	if i+1 < len(args) {
		w.run(args[i+1:])
	}
}

// tasksetProg: taskset [-c] MASK CMD… (or -p).
func tasksetProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "", "")
	if o.has("p", "pid") {
		w.add(SystemWrite, "taskset changes another process")
		return
	}
	i := commandStart(args, "", "")
	if i+1 < len(args) {
		w.run(args[i+1:])
	}
}

// flockProg: flock [opts] FILE CMD… or flock [opts] FILE -c STRING.
func flockProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "wEc", "timeout conflict-exit-code command")
	if c, ok := o.val("c", "command"); ok {
		w.nested(c)
		return
	}
	i := commandStart(args, "wE", "timeout conflict-exit-code")
	if i < len(args) {
		w.write(args[i], "flock creates its lock file")
	}
	if i+1 < len(args) {
		w.run(args[i+1:])
	}
}

// watchProg runs its command repeatedly through sh -c (unless -x).
func watchProg(w *walker, name string, args []arg) {
	i := commandStart(args, "nqd", "interval equexit differences")
	if i >= len(args) {
		w.add(Safe, "watch without a command")
		return
	}
	if parseOpts(args[:i], "nqd", "interval equexit differences").has("x", "exec") {
		w.run(args[i:])
		return
	}
	s, static := joined(args[i:])
	w.nested(arg{s: s, static: static})
}

func chrootProg(w *walker, name string, args []arg) {
	w.add(SystemWrite, "chroot runs in another root")
	i := commandStart(args, "", "userspec groups")
	if i+1 < len(args) {
		w.run(args[i+1:])
		return
	}
	w.add(CodeExecution, "chroot opens a shell")
}

func nsProg(w *walker, name string, args []arg) {
	w.add(SystemWrite, name+" enters other namespaces")
	i := commandStart(args, "tSGwr", "target setuid setgid wd root")
	if i < len(args) {
		w.run(args[i:])
		return
	}
	w.add(CodeExecution, name+" opens a shell")
}

// commandProg: command [-p] CMD…; command -v/-V only looks a name up.
func commandProg(w *walker, name string, args []arg) {
	i := commandStart(args, "", "")
	if parseOpts(args[:i], "", "").has("v", "V") {
		w.add(Safe, name+" -v looks a command up")
		return
	}
	if i < len(args) {
		w.run(args[i:])
		return
	}
	w.add(Safe, name+" without a command")
}

// execProg: exec [-cl] [-a NAME] CMD…; bare exec only applies redirections.
func execProg(w *walker, name string, args []arg) {
	i := commandStart(args, "a", "")
	if i < len(args) {
		w.run(args[i:])
		return
	}
	w.add(Safe, "exec applies redirections")
}

// evalProg runs its joined arguments as a command.
func evalProg(w *walker, name string, args []arg) {
	s, static := joined(args)
	w.nested(arg{s: s, static: static})
}

// trapProg: trap 'CMD' SIGNAL… runs CMD later.
func trapProg(w *walker, name string, args []arg) {
	i := commandStart(args, "", "")
	if i >= len(args) || parseOpts(args[:i], "", "").has("p", "l") {
		w.add(Safe, "trap lists handlers")
		return
	}
	if a := args[i]; !a.static || (a.s != "-" && a.s != "") {
		w.nested(a)
		return
	}
	w.add(Safe, "trap resets handlers")
}

// nested classifies a command string that will be parsed and run again.
func (w *walker) nested(a arg) {
	if !a.static {
		w.add(CodeExecution, "runs a command string built at run time")
		return
	}
	in := w.c.shell(a.s, w.cwd, w.depth+1)
	w.a = w.a.Merge(in)
}

// xargsProg runs its command with arguments read from stdin.
func xargsProg(w *walker, name string, args []arg) {
	i := commandStart(args, "EeIiLlnPsdaR", "eof replace max-lines max-args max-procs max-chars delimiter arg-file process-slot-var")
	cmd := args[i:]
	if len(cmd) == 0 {
		cmd = []arg{lit("echo")}
	}
	w.run(append(append([]arg(nil), cmd...), arg{s: dynMark, lead: true}))
}

// findProg: -delete deletes under the roots; -exec and friends run their
// command; -fprint writes a file.
func findProg(w *walker, name string, args []arg) {
	i := 0
	for i < len(args) && args[i].static && (args[i].s == "-H" || args[i].s == "-L" || args[i].s == "-P" || strings.HasPrefix(args[i].s, "-O") || args[i].s == "-D") {
		if args[i].s == "-D" {
			i++
		}
		i++
	}
	var roots []arg
	for ; i < len(args) && !(args[i].static && (strings.HasPrefix(args[i].s, "-") || args[i].s == "(" || args[i].s == "!")); i++ {
		roots = append(roots, args[i])
	}
	if len(roots) == 0 {
		roots = []arg{lit(".")}
	}
	w.add(Safe, "find lists files")
	filtered := false
	for _, a := range args[i:] {
		filtered = filtered || findTests()[a.s]
	}
	for ; i < len(args); i++ {
		switch args[i].s {
		case "-delete":
			for _, r := range roots {
				w.remove(r, !filtered, "find -delete deletes under")
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && !(args[j].static && (args[j].s == ";" || args[j].s == "+")) {
				j++
			}
			cmd := make([]arg, 0, j-i-1)
			for _, a := range args[i+1 : j] {
				if a.static && a.s == "{}" {
					a = roots[0]
				}
				cmd = append(cmd, a)
			}
			w.run(cmd)
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				w.write(args[i+1], "find "+args[i].s+" writes")
			}
		}
	}
}

// findTests are the predicates that narrow what -delete deletes.
var findTests = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-name": true, "-iname": true, "-path": true, "-ipath": true, "-regex": true, "-iregex": true,
		"-type": true, "-newer": true, "-mtime": true, "-mmin": true, "-size": true, "-empty": true,
		"-user": true, "-perm": true, "-atime": true, "-ctime": true, "-wholename": true,
	}
})

// shellProg: sh -c STRING runs STRING (the first operand after the
// options, wherever -c stands among them); a script or stdin runs code odek
// cannot see. -o and -O take a value (sh -o errexit -c STRING); + turns an
// option off (bash +e -c STRING); - and -- end the options.
func shellProg(w *walker, name string, args []arg) {
	command := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.static && (a.s == "-" || a.s == "--") {
			if command && i+1 < len(args) {
				w.nested(args[i+1])
				return
			}
			break
		}
		if !a.static || len(a.s) < 2 || a.s[0] != '-' && a.s[0] != '+' {
			if command {
				w.nested(a)
				return
			}
			break
		}
		if a.s == "--version" || a.s == "--help" {
			w.add(Safe, name+" "+a.s)
			return
		}
		if strings.HasPrefix(a.s, "--") {
			continue
		}
		if a.s[0] == '-' && strings.Contains(a.s, "c") {
			command = true
		}
		if strings.ContainsAny(a.s, "oO") {
			i++ // the option's name
		}
	}
	w.add(CodeExecution, name+" runs a script or its input")
}

// scriptProg: script -c CMD FILE records CMD's output into FILE.
func scriptProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "cEIOBTm", "command echo log-in log-out log-io log-timing logging-format")
	if c, ok := o.val("c", "command"); ok {
		w.nested(c)
	} else {
		w.add(CodeExecution, "script opens a shell")
	}
	w.writeAll(o.ops, "script writes")
}

// cdProg follows the working directory when it can.
func cdProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "", "")
	w.add(Safe, name+" changes directory")
	if len(o.ops) == 0 || o.ops[0].s == "-" {
		w.cwd = ""
		return
	}
	w.chdir(o.ops[0])
}

// chdir moves the walk's directory to a, or makes it unknown.
func (w *walker) chdir(a arg) {
	pl, r := w.where(a)
	if pl == unknowable || a.glob {
		w.cwd = ""
		return
	}
	w.cwd = r
}
