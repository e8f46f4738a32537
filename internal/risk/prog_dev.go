package risk

import (
	"strings"
	"sync"
)

// registerDev adds version control, language toolchains, package managers
// and interpreters: their class depends on the subcommand.
func registerDev() {
	register(gitProg, "git")
	register(goProg, "go")
	register(npmProg, "npm", "pnpm", "yarn")
	register(fixed(CodeExecution, "runs a package's code"), "npx", "pnpx", "bunx")
	register(pipProg, "pip", "pipx")
	register(uvProg, "uv")
	register(cargoProg, "cargo")
	register(containerProg, "docker", "podman", "nerdctl")
	register(interpreter, "python", "pypy", "node", "nodejs", "ruby", "perl", "php", "lua", "deno", "bun")
	register(subcommands(map[string]Class{"install": Install, "update": Install, "uninstall": Install}, CodeExecution), "gem", "bundle", "composer", "poetry", "conda", "mamba", "cpan", "cpanm")
}

// subcommands classifies by the first operand; others get def.
func subcommands(m map[string]Class, def Class) handler {
	return func(w *walker, name string, args []arg) {
		sub := firstWord(args)
		if c, ok := m[sub]; ok {
			w.add(c, name+" "+sub)
			return
		}
		w.add(def, name+" "+clip(sub)+" runs code odek cannot inspect")
	}
}

// firstWord is the first static operand, "" if none.
func firstWord(args []arg) string {
	for _, a := range args {
		if !a.static {
			return dynMark
		}
		if !strings.HasPrefix(a.s, "-") {
			return a.s
		}
	}
	return ""
}

var gitSubcommands = sync.OnceValue(func() map[string]Class {
	return map[string]Class{
		"status": Safe, "log": Safe, "diff": Safe, "show": Safe, "rev-parse": Safe, "rev-list": Safe,
		"ls-files": Safe, "ls-tree": Safe, "cat-file": Safe, "blame": Safe, "grep": Safe, "describe": Safe,
		"shortlog": Safe, "reflog": Safe, "help": Safe, "version": Safe, "whatchanged": Safe,
		"name-rev": Safe, "merge-base": Safe, "for-each-ref": Safe, "show-ref": Safe, "count-objects": Safe,
		"check-ignore": Safe, "var": Safe, "cherry": Safe, "range-diff": Safe, "annotate": Safe,
		"add": LocalWrite, "commit": LocalWrite, "checkout": LocalWrite, "switch": LocalWrite,
		"restore": LocalWrite, "reset": LocalWrite, "merge": LocalWrite, "rebase": LocalWrite,
		"cherry-pick": LocalWrite, "revert": LocalWrite, "stash": LocalWrite, "mv": LocalWrite,
		"rm": LocalWrite, "apply": LocalWrite, "am": LocalWrite, "init": LocalWrite, "clean": LocalWrite,
		"worktree": LocalWrite, "notes": LocalWrite, "gc": LocalWrite, "prune": LocalWrite,
		"repack": LocalWrite, "bisect": LocalWrite, "format-patch": LocalWrite, "update-index": LocalWrite,
		"sparse-checkout": LocalWrite, "tag": LocalWrite, "branch": LocalWrite, "remote": LocalWrite,
		"config": LocalWrite, "update-ref": LocalWrite, "commit-tree": LocalWrite, "read-tree": LocalWrite,
		"push": NetworkEgress, "pull": NetworkEgress, "fetch": NetworkEgress, "clone": NetworkEgress,
		"ls-remote": NetworkEgress, "submodule": NetworkEgress, "send-email": NetworkEgress,
		"request-pull": NetworkEgress, "archive": LocalWrite, "lfs": NetworkEgress,
		"mergetool": CodeExecution, "difftool": CodeExecution, "filter-branch": CodeExecution,
	}
})

// gitListing are the read-only forms of the write subcommands.
var gitListing = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"branch": {"-a", "-r", "-v", "-vv", "--list", "-l", "--show-current", "--contains", "--merged", "--no-merged", "--all", "--remotes"},
		"tag":    {"-l", "--list", "-n", "--contains", "--points-at"},
		"remote": {"-v", "--verbose", "get-url", "show"},
		"config": {"--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--show-scope"},
		"stash":  {"list", "show"},
		"notes":  {"list", "show"},
	}
})

// gitProg: global options, then the subcommand. -c with a key that runs a
// program (aliases, pagers, hooks, ssh commands…) is code execution, as is
// any subcommand git does not ship (it may be an alias for a shell command).
func gitProg(w *walker, name string, args []arg) {
	i := 0
	for ; i < len(args) && args[i].static && strings.HasPrefix(args[i].s, "-"); i++ {
		s := args[i].s
		switch {
		case s == "-c" && i+1 < len(args):
			i++
			if k, _, _ := strings.Cut(args[i].s, "="); !args[i].static || gitExecKey(k) {
				w.add(CodeExecution, "git -c "+clip(k)+" makes git run a program")
			}
		case s == "-C" && i+1 < len(args):
			i++
		case strings.HasPrefix(s, "--exec-path="), strings.HasPrefix(s, "--config-env"):
			w.add(CodeExecution, "git "+clip(s)+" makes git run programs")
		case s == "--version" || s == "--help":
			w.add(Safe, "git "+s)
			return
		}
	}
	if i >= len(args) {
		w.add(Safe, "git without a subcommand")
		return
	}
	if !args[i].static {
		w.add(Unknown, "git subcommand computed at run time")
		return
	}
	sub, rest := args[i].s, args[i+1:]
	c, ok := gitSubcommands()[sub]
	if !ok {
		w.add(Unknown, "git "+clip(sub)+" is not a git subcommand odek knows (it may be an alias)")
		return
	}
	if c == LocalWrite && gitReadOnly(sub, rest) {
		c = Safe
	}
	if sub == "config" && c == LocalWrite {
		for _, a := range rest {
			if a.static && gitExecKey(a.s) {
				c = CodeExecution
			}
		}
	}
	if sub == "clone" {
		if ops := parseOpts(rest, "obuc", "origin branch upload-pack config depth reference template separate-git-dir jobs filter").ops; len(ops) > 1 {
			w.write(ops[1], "git clone writes")
		}
	}
	for _, a := range rest {
		if a.static && (strings.HasPrefix(a.s, "--upload-pack") || strings.HasPrefix(a.s, "--receive-pack") || strings.HasPrefix(a.s, "--exec=")) {
			c = CodeExecution
		}
	}
	w.add(c, "git "+sub)
}

func gitReadOnly(sub string, rest []arg) bool {
	forms, ok := gitListing()[sub]
	if !ok {
		return false
	}
	if len(rest) == 0 {
		return sub != "stash" // bare git stash stashes
	}
	for _, a := range rest {
		for _, f := range forms {
			if a.static && a.s == f {
				return true
			}
		}
	}
	return false
}

// gitExecKey is a config key whose value git runs as a program.
func gitExecKey(k string) bool {
	k = strings.ToLower(k)
	for _, frag := range []string{"alias.", "filter.", "textconv", "command", "pager", "editor", "hookspath",
		"fsmonitor", "helper", "program", "driver", "external", "ssh", "proxy", "askpass", "hook", "exec", "tool"} {
		if strings.Contains(k, frag) {
			return true
		}
	}
	return false
}

var goSubcommands = sync.OnceValue(func() map[string]Class {
	return map[string]Class{
		"build": Safe, "vet": Safe, "list": Safe, "version": Safe, "doc": Safe, "help": Safe, "env": Safe,
		"fmt": LocalWrite, "clean": LocalWrite, "work": LocalWrite, "fix": LocalWrite,
		"get": Install, "install": Install,
		"run": CodeExecution, "test": CodeExecution, "generate": CodeExecution, "tool": CodeExecution,
		"bug": NetworkEgress, "telemetry": LocalWrite,
	}
})

var goModSubcommands = sync.OnceValue(func() map[string]Class {
	return map[string]Class{
		"download": NetworkEgress, "tidy": NetworkEgress, "vendor": NetworkEgress, "init": LocalWrite,
		"edit": LocalWrite, "graph": Safe, "why": Safe, "verify": Safe,
	}
})

// goProg: go build and vet are safe (docs/TOOLS.md), go run and go test run
// code, go install/get install. -toolexec, -exec and -vettool run programs.
func goProg(w *walker, name string, args []arg) {
	sub := firstWord(args)
	rest := args[min(len(args), indexOf(args, sub)+1):]
	c, ok := goSubcommands()[sub]
	if sub == "mod" {
		s2 := firstWord(rest)
		c, ok = goModSubcommands()[s2]
		sub += " " + s2
	}
	if !ok {
		w.add(Unknown, "go "+clip(sub)+" is not a go command odek knows")
		return
	}
	flags, out, hasOut := goFlags(rest)
	if sub == "env" && (flags["w"] || flags["u"]) {
		c = SystemWrite
	}
	if flags["toolexec"] || flags["exec"] || flags["vettool"] || flags["overlay"] {
		c = max(c, CodeExecution)
	}
	if hasOut && sub == "build" {
		w.write(out, "go build -o writes")
	}
	w.add(c, "go "+sub)
}

// goFlags reads the go command's flags, which take one dash or two alike
// (go test -exec X is --exec X): the names given, and -o's value.
func goFlags(args []arg) (flags map[string]bool, out arg, hasOut bool) {
	flags = map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			continue
		}
		if a.s == "--" {
			break
		}
		name, ok := strings.CutPrefix(a.s, "-")
		if !ok || name == "" {
			continue
		}
		name = strings.TrimPrefix(name, "-")
		name, v, hasVal := strings.Cut(name, "=")
		flags[name] = true
		if name == "o" {
			switch {
			case hasVal:
				out, hasOut = arg{s: v, static: true}, true
			case i+1 < len(args):
				i++
				out, hasOut = args[i], true
			}
		}
	}
	return flags, out, hasOut
}

func indexOf(args []arg, s string) int {
	for i, a := range args {
		if a.s == s {
			return i
		}
	}
	return len(args)
}

var npmSubcommands = sync.OnceValue(func() map[string]Class {
	return map[string]Class{
		"install": Install, "i": Install, "ci": Install, "add": Install, "update": Install, "up": Install,
		"upgrade": Install, "isntall": Install, "link": Install,
		"uninstall": LocalWrite, "remove": LocalWrite, "rm": LocalWrite, "un": LocalWrite, "prune": LocalWrite,
		"dedupe": LocalWrite, "pack": LocalWrite, "init": CodeExecution, "create": CodeExecution,
		"run": CodeExecution, "run-script": CodeExecution, "test": CodeExecution, "t": CodeExecution,
		"start": CodeExecution, "stop": CodeExecution, "restart": CodeExecution, "exec": CodeExecution,
		"x": CodeExecution, "dlx": CodeExecution, "rebuild": CodeExecution,
		"ls": Safe, "list": Safe, "ll": Safe, "la": Safe, "help": Safe, "version": Safe, "root": Safe,
		"prefix": Safe, "bin": Safe, "why": Safe, "explain": Safe, "config": Safe, "get": Safe,
		"view": NetworkEgress, "info": NetworkEgress, "show": NetworkEgress, "outdated": NetworkEgress,
		"audit": NetworkEgress, "search": NetworkEgress, "publish": NetworkEgress, "login": NetworkEgress,
		"adduser": NetworkEgress, "whoami": NetworkEgress, "ping": NetworkEgress, "doctor": NetworkEgress,
	}
})

// npmProg: npm, pnpm and yarn. Bare yarn installs; yarn <script> runs it.
func npmProg(w *walker, name string, args []arg) {
	sub := firstWord(args)
	if c, ok := npmSubcommands()[sub]; ok {
		w.add(c, name+" "+sub)
		return
	}
	switch {
	case sub == "" && name == "yarn":
		w.add(Install, "yarn installs dependencies")
	case sub == "" && parseOpts(args, "", "").has("v", "version", "help", "h"):
		w.add(Safe, name+" --version")
	case name != "npm" && sub != "" && sub != dynMark:
		w.add(CodeExecution, name+" "+clip(sub)+" runs a package script")
	default:
		w.add(Unknown, name+" "+clip(sub)+" is not a command odek knows")
	}
}

var pipSubcommands = sync.OnceValue(func() map[string]Class {
	return map[string]Class{
		"install": Install, "download": Install, "wheel": Install, "uninstall": Install, "inject": Install,
		"upgrade": Install, "reinstall": Install,
		"list": Safe, "show": Safe, "freeze": Safe, "check": Safe, "help": Safe, "debug": Safe, "hash": Safe,
		"search": NetworkEgress, "index": NetworkEgress, "config": LocalWrite, "cache": LocalWrite,
		"run": CodeExecution,
	}
})

func pipProg(w *walker, name string, args []arg) {
	sub := firstWord(args)
	if c, ok := pipSubcommands()[sub]; ok {
		w.add(c, name+" "+sub)
		return
	}
	if sub == "" && parseOpts(args, "", "").has("V", "version", "help", "h") {
		w.add(Safe, name+" --version")
		return
	}
	w.add(Unknown, name+" "+clip(sub)+" is not a command odek knows")
}

func uvProg(w *walker, name string, args []arg) {
	sub := firstWord(args)
	switch sub {
	case "pip":
		pipProg(w, "uv pip", args[indexOf(args, sub)+1:])
	case "add", "sync", "lock", "remove", "tool":
		w.add(Install, "uv "+sub)
	case "run":
		w.add(CodeExecution, "uv run runs code")
	case "venv", "init":
		w.add(LocalWrite, "uv "+sub)
	case "version", "help", "tree":
		w.add(Safe, "uv "+sub)
	default:
		w.add(Unknown, "uv "+clip(sub)+" is not a command odek knows")
	}
}

var cargoSubcommands = sync.OnceValue(func() map[string]Class {
	return map[string]Class{
		"build": CodeExecution, "b": CodeExecution, "check": CodeExecution, "c": CodeExecution,
		"clippy": CodeExecution, "test": CodeExecution, "t": CodeExecution, "run": CodeExecution,
		"r": CodeExecution, "bench": CodeExecution, "doc": CodeExecution,
		"fmt": LocalWrite, "new": LocalWrite, "init": LocalWrite, "clean": LocalWrite,
		"install": Install, "add": Install, "remove": LocalWrite, "fetch": NetworkEgress,
		"update": NetworkEgress, "search": NetworkEgress, "publish": NetworkEgress, "login": NetworkEgress,
		"version": Safe, "help": Safe, "metadata": Safe, "tree": Safe, "locate-project": Safe, "pkgid": Safe,
	}
})

func cargoProg(w *walker, name string, args []arg) {
	sub := firstWord(args)
	if c, ok := cargoSubcommands()[sub]; ok {
		w.add(c, "cargo "+sub)
		return
	}
	if sub == "" && parseOpts(args, "", "").has("V", "version", "help", "h") {
		w.add(Safe, "cargo --version")
		return
	}
	w.add(Unknown, "cargo "+clip(sub)+" is not a command odek knows")
}

var containerSubcommands = sync.OnceValue(func() map[string]Class {
	return map[string]Class{
		"ps": Safe, "images": Safe, "inspect": Safe, "logs": Safe, "version": Safe, "info": Safe,
		"stats": Safe, "top": Safe, "history": Safe, "port": Safe, "diff": Safe, "events": Safe,
		"pull": NetworkEgress, "push": NetworkEgress, "login": NetworkEgress, "logout": NetworkEgress,
		"search": NetworkEgress,
		"run":    CodeExecution, "exec": CodeExecution, "build": CodeExecution, "create": CodeExecution,
		"start": CodeExecution, "compose": CodeExecution, "buildx": CodeExecution, "restart": CodeExecution,
		"rm": SystemWrite, "rmi": SystemWrite, "kill": SystemWrite, "stop": SystemWrite, "prune": SystemWrite,
		"system": SystemWrite, "volume": SystemWrite, "network": SystemWrite, "cp": SystemWrite,
		"tag": SystemWrite, "save": LocalWrite, "load": SystemWrite, "commit": SystemWrite,
	}
})

func containerProg(w *walker, name string, args []arg) {
	sub := firstWord(args)
	if c, ok := containerSubcommands()[sub]; ok {
		w.add(c, name+" "+sub)
		return
	}
	w.add(Unknown, name+" "+clip(sub)+" is not a command odek knows")
}

// interpreter: any program or script is code execution; --version is safe;
// python -m pip is pip.
func interpreter(w *walker, name string, args []arg) {
	if len(args) == 1 && args[0].static && (args[0].s == "--version" || args[0].s == "-V" || args[0].s == "-v" || args[0].s == "--help") {
		w.add(Safe, name+" "+args[0].s)
		return
	}
	for i, a := range args { // -m counts only among the options, before a script
		if !a.static || !strings.HasPrefix(a.s, "-") || a.s == "-" || a.s == "-c" {
			break
		}
		if a.s == "-m" && i+1 < len(args) && args[i+1].static && args[i+1].s == "pip" {
			pipProg(w, name+" -m pip", args[i+2:])
			return
		}
	}
	w.add(CodeExecution, name+" runs a program odek cannot inspect")
}
