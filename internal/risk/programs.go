package risk

import (
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// handler classifies one invocation of a program; args exclude the name.
type handler func(w *walker, name string, args []arg)

// programs is every program the classifier knows. Filled by buildPrograms
// from the tables in the prog_*.go files, on the first lookup: a process that
// classifies no command (odek version, a run without the shell tool) never
// pays for it.
var programs = map[string]handler{}

// programsOnce guards the one call of buildPrograms.
var programsOnce sync.Once

func register(h handler, names ...string) {
	for _, n := range names {
		programs[n] = h
	}
}

// fixed is a program whose class does not depend on its arguments.
func fixed(c Class, why string) handler {
	return func(w *walker, name string, _ []arg) { w.add(c, name+" "+why) }
}

// systemBinDirs are where a program given by absolute path is still the
// program of that name.
var systemBinDirs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"/bin": true, "/sbin": true, "/usr/bin": true, "/usr/sbin": true, "/usr/local/bin": true,
		"/usr/local/sbin": true, "/opt/homebrew/bin": true, "/snap/bin": true, "/usr/libexec": true,
	}
})

// run classifies argv: args[0] names the program.
func (w *walker) run(args []arg) {
	if len(args) == 0 {
		return
	}
	a0 := args[0]
	if !a0.static {
		w.add(Unknown, "the program name is computed at run time")
		return
	}
	name := a0.s
	if strings.Contains(name, "/") {
		dir, base := path.Split(path.Clean(name))
		if !systemBinDirs()[strings.TrimSuffix(dir, "/")] {
			w.add(CodeExecution, "runs "+clip(name)+", a program given by its path")
			return
		}
		name = base
	}
	if name == w.fn && name != "" {
		w.add(Blocked, "function "+name+" calls itself (a fork bomb)")
		return
	}
	h := lookup(name)
	if moves, ok := w.funcs[name]; ok {
		w.add(Safe, "calls the function "+name)
		if moves {
			w.cwd = ""
		}
		if h == nil {
			return // a function that shadows a program: classify the program too
		}
	}
	if h == nil {
		w.add(Unknown, clip(name)+" is not a program odek knows")
		return
	}
	h(w, name, args[1:])
}

// lookup finds a program's handler, also for versioned names (python3.12,
// pip3, mkfs.ext4).
func lookup(name string) handler {
	programsOnce.Do(buildPrograms)
	if h := programs[name]; h != nil {
		return h
	}
	if h := programs[strings.TrimRight(name, "0123456789.-")]; h != nil && strings.TrimRight(name, "0123456789.-") != "" {
		return h
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		if h := familyByPrefix[name[:i]]; h != nil {
			return h
		}
	}
	return nil
}

// familyByPrefix are programs that come as prefix.variant (mkfs.ext4).
var familyByPrefix = map[string]handler{}

// clip shortens a name or path for a reason text, never inside a rune.
func clip(s string) string {
	if len(s) > 80 {
		return strings.ToValidUTF8(s[:77], "") + "..."
	}
	return s
}

// where says where a path argument lands, as far as the walk knows.
func (w *walker) where(a arg) (place, string) {
	if strings.Contains(a.s, dynMark) {
		return unknowable, ""
	}
	s := a.s
	if a.glob {
		if i := strings.IndexAny(s, "*?[{"); i >= 0 {
			s = s[:i]
			if j := strings.LastIndexByte(s, '/'); j >= 0 {
				s = s[:j+1]
			} else {
				s = "."
			}
		}
	}
	if s == "" {
		s = "."
	}
	if !filepath.IsAbs(s) && !strings.HasPrefix(s, "~") && w.cwd == "" {
		return unknowable, ""
	}
	abs := w.c.absolute(w.cwd, s)
	if abs == "" {
		return outside, s
	}
	return w.c.placeOf(abs)
}

// write classifies a path the command writes to.
func (w *walker) write(a arg, what string) {
	pl, r := w.where(a)
	switch pl {
	case sink:
		w.add(Safe, what+" to "+r)
	case inside:
		w.add(LocalWrite, what+" inside the working directory")
	case rawDevice:
		w.add(Blocked, what+" to a raw device ("+r+")")
	case unknowable:
		w.add(SystemWrite, what+" to a path odek cannot resolve before it runs")
	default:
		w.add(SystemWrite, what+" outside the working directory ("+clip(r)+")")
	}
}

// writeAll classifies each operand as a written path.
func (w *walker) writeAll(ops []arg, what string) {
	for _, a := range ops {
		w.write(a, what)
	}
}

// remove classifies a path the command deletes (or moves away); recursive
// deletions of /, a top-level directory, home, or the working directory or
// one of its parents are destructive.
func (w *walker) remove(a arg, recursive bool, what string) {
	if recursive && a.lead {
		w.add(Destructive, what+" -r on a path computed at run time (it could be /)")
		return
	}
	pl, r := w.where(a)
	switch {
	case pl == rawDevice:
		w.add(Blocked, what+" a raw device ("+r+")")
	case pl == unknowable:
		w.add(SystemWrite, what+" a path odek cannot resolve before it runs")
	case recursive && w.critical(r):
		w.add(Destructive, what+" -r "+clip(r))
	case pl == inside:
		w.add(LocalWrite, what+" inside the working directory")
	default:
		w.add(SystemWrite, what+" outside the working directory ("+clip(r)+")")
	}
}

// critical is a directory whose recursive deletion is a disaster.
func (w *walker) critical(r string) bool {
	if r == "/" || filepath.Dir(r) == "/" || within(w.c.root, r) {
		return true
	}
	return w.c.home != "" && within(w.c.home, r)
}

// buildPrograms fills programs and familyByPrefix.
func buildPrograms() {
	register(fixed(Safe, "only reads or prints"), safePrograms...)
	register(fixed(NetworkEgress, "reaches the network"), networkPrograms...)
	register(fixed(SystemWrite, "changes the system outside the working directory"), systemPrograms...)
	register(fixed(Destructive, "destroys data or stops the machine"), destructivePrograms...)
	register(fixed(CodeExecution, "runs code odek cannot inspect"), codePrograms...)
	registerFiles()
	registerWrappers()
	registerDev()
	registerSystem()
	familyByPrefix["mkfs"] = programs["mkfs"]
	familyByPrefix["fsck"] = programs["fsck"]
}
