package risk

import "strings"

// registerFiles adds the programs that write, move or delete files; their
// class depends on where their path operands resolve.
func registerFiles() {
	register(rmProg, "rm", "unlink", "rmdir")
	register(shredProg, "shred")
	register(func(w *walker, name string, args []arg) {
		o := parseOpts(args, "mrdt", "mode reference date")
		w.writeAll(o.ops, name+" writes")
	}, "touch", "mkdir", "mkfifo", "mknod")
	register(mvProg, "mv")
	register(destProg, "cp", "ln", "install", "link")
	register(func(w *walker, name string, args []arg) {
		o := parseOpts(args, "sr", "size reference")
		w.writeAll(o.ops, name+" writes")
	}, "truncate")
	register(modeProg, "chmod", "chown", "chgrp")
	register(teeProg, "tee")
	register(sortProg, "sort")
	register(sedProg, "sed", "gsed")
	register(awkProg, "awk", "gawk", "mawk", "nawk")
	register(tarProg, "tar", "bsdtar")
	register(unzipProg, "unzip")
	register(func(w *walker, name string, args []arg) {
		o := parseOpts(args, "bnt", "")
		if len(o.ops) > 0 {
			w.write(o.ops[0], name+" writes an archive")
		}
	}, "zip", "7z", "7za", "rar")
	register(compressProg, "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "brotli", "lzma", "unlzma", "pigz")
	register(fixed(LocalWrite, "creates a new scratch file"), "mktemp")
	register(outFlagProg("o", "output"), "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "javac", "iconv", "pandoc")
	register(ddProg, "dd")
	register(formatter(func(o opts) bool { return o.has("w", "write") }), "gofmt", "goimports", "shfmt")
	register(formatter(func(o opts) bool { return o.has("i") }), "clang-format")
	register(formatter(func(o opts) bool { return !o.has("check", "diff") }), "black", "isort", "rustfmt")
	register(xxdProg, "xxd")
	register(patchProg, "patch")
	register(splitProg, "split", "csplit")
}

func rmProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "", "")
	recursive := o.has("r", "R", "recursive") || name == "rmdir" && o.has("p", "parents")
	if o.has("no-preserve-root") {
		w.add(Destructive, "rm --no-preserve-root")
	}
	if len(o.ops) == 0 {
		w.add(LocalWrite, name+" deletes files")
	}
	for _, a := range o.ops {
		w.remove(a, recursive, name)
	}
}

// shred overwrites its files beyond recovery.
func shredProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "nsx", "iterations size random-source")
	w.add(Destructive, "shred destroys file contents beyond recovery")
	for _, a := range o.ops {
		w.remove(a, true, name)
	}
}

// mv removes its sources from where they were and writes the destination.
func mvProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "tS", "target-directory suffix")
	if t, ok := o.val("t", "target-directory"); ok {
		w.write(t, "mv writes")
	}
	for _, a := range o.ops {
		w.remove(a, true, "mv moves")
	}
	if len(o.ops) == 0 {
		w.add(LocalWrite, "mv moves files")
	}
}

// destProg writes only its last operand (or -t DIR).
func destProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "tSmogb", "target-directory suffix mode owner group")
	if t, ok := o.val("t", "target-directory"); ok {
		w.write(t, name+" writes")
		return
	}
	switch {
	case name == "install" && o.has("d", "directory"):
		w.writeAll(o.ops, name+" creates")
	case len(o.ops) == 1 && (name == "ln" || name == "link"):
		w.write(lit("."), name+" writes") // ln target: the link goes in cwd
	case len(o.ops) > 0:
		w.write(o.ops[len(o.ops)-1], name+" writes")
	default:
		w.add(LocalWrite, name+" copies files")
	}
}

// modeProg: chmod MODE FILE…, chown OWNER FILE… (or --reference=F FILE…).
func modeProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "", "reference from")
	ops := o.ops
	if _, ref := o.val("reference"); !ref && len(ops) > 0 {
		ops = ops[1:]
	}
	recursive := o.has("R", "recursive")
	for _, a := range ops {
		w.remove(a, recursive, name+" changes")
	}
	if len(ops) == 0 {
		w.add(LocalWrite, name+" changes file modes")
	}
}

func teeProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "", "output-error")
	w.writeAll(o.ops, "tee writes")
	w.add(Safe, "tee copies its input")
}

func sortProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "oSTtkt", "output buffer-size temporary-directory field-separator key files0-from parallel batch-size compress-program")
	if v, ok := o.val("o", "output"); ok {
		w.write(v, "sort -o writes")
	}
	if _, ok := o.val("compress-program"); ok {
		w.add(CodeExecution, "sort --compress-program runs a program")
	}
	w.add(Safe, "sort reads and prints")
}

// sedProg: -i edits files in place; the e command and the e flag of s run
// shell commands; w writes files.
func sedProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "eflI", "expression file line-length")
	var scripts []arg
	if v, ok := o.val("e", "expression"); ok {
		scripts = append(scripts, v)
	}
	files := o.ops
	if _, ok := o.val("f", "file"); ok {
		w.add(CodeExecution, "sed -f runs a script from a file")
	} else if len(scripts) == 0 && len(files) > 0 {
		scripts, files = files[:1], files[1:]
	}
	for _, s := range scripts {
		switch sedScript(s) {
		case sedExec:
			w.add(CodeExecution, "the sed script runs shell commands (e)")
		case sedWrite:
			w.add(SystemWrite, "the sed script writes a file (w)")
		}
	}
	inPlace := o.has("i", "in-place") || hasInPlaceSuffix(args)
	if inPlace {
		w.writeAll(files, "sed -i edits")
		return
	}
	w.add(Safe, "sed prints its edits")
}

func hasInPlaceSuffix(args []arg) bool {
	for _, a := range args {
		if a.static && (strings.HasPrefix(a.s, "-i") || strings.HasPrefix(a.s, "--in-place")) {
			return true
		}
	}
	return false
}

type sedKind int

const (
	sedPlain sedKind = iota
	sedWrite
	sedExec
)

// sedScript looks for the e command, the s///e flag and the w command or
// flag. It reads the script loosely and errs towards finding them.
func sedScript(a arg) sedKind {
	if !a.static {
		return sedExec
	}
	s := a.s
	k := sedPlain
	for _, cmd := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' || r == '{' || r == '}' }) {
		c := strings.TrimLeft(cmd, " \t0123456789,$!/^.*[]\\-+~")
		if c == "" {
			continue
		}
		switch {
		case c[0] == 'e' && (len(c) == 1 || c[1] == ' '):
			return sedExec
		case c[0] == 'w' || c[0] == 'W':
			k = sedWrite
		case c[0] == 's' && len(c) > 1:
			flags := sedFlags(c)
			if strings.Contains(flags, "e") {
				return sedExec
			}
			if strings.Contains(flags, "w") {
				k = sedWrite
			}
		}
	}
	return k
}

// sedFlags is what follows the third delimiter of s/…/…/flags.
func sedFlags(c string) string {
	d := c[1]
	n := 0
	for i := 2; i < len(c); i++ {
		if c[i] == '\\' {
			i++
			continue
		}
		if c[i] == d {
			if n++; n == 2 {
				return c[i+1:]
			}
		}
	}
	return ""
}

// awkProg: system(), pipes and getline from commands run programs; print >
// writes files (or is a comparison: either way not plain reading).
func awkProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "fvFi", "file assign field-separator include load")
	if inc, ok := o.val("i", "include"); ok && inc.s == "inplace" {
		w.writeAll(o.ops[min(1, len(o.ops)):], name+" -i inplace edits")
	}
	if _, ok := o.val("f", "file"); ok {
		w.add(CodeExecution, name+" -f runs a program from a file")
		return
	}
	if len(o.ops) == 0 {
		w.add(Safe, name+" reads")
		return
	}
	prog := o.ops[0]
	switch {
	case !prog.static:
		w.add(CodeExecution, name+" runs a program built at run time")
	case strings.Contains(prog.s, "system") || strings.Contains(prog.s, "|"):
		w.add(CodeExecution, name+" program runs commands (system or a pipe)")
	case strings.Contains(prog.s, ">"):
		w.add(SystemWrite, name+" program may write files (print >)")
	default:
		w.add(Safe, name+" reads and prints")
	}
}

// tarProg: c/r/u write the -f archive, x writes into -C or cwd, t lists.
func tarProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "fCbIHTXgKLNV", "file directory use-compress-program to-command checkpoint-action info-script new-volume-script transform")
	mode := ""
	if len(args) > 0 && args[0].static && !strings.HasPrefix(args[0].s, "-") {
		mode = args[0].s // bundled: tar xzf a.tgz
		o = parseOpts(append([]arg{lit("-" + mode)}, args[1:]...), "fCbIHTXgKLNV", "file directory use-compress-program to-command checkpoint-action info-script new-volume-script transform")
	}
	for _, f := range []string{"I", "use-compress-program", "to-command", "checkpoint-action", "info-script", "new-volume-script", "F"} {
		if o.has(f) {
			w.add(CodeExecution, "tar --"+f+" runs a program")
		}
	}
	switch {
	case o.has("x", "extract", "get"):
		dir, ok := o.val("C", "directory")
		if !ok {
			dir = lit(".")
		}
		w.write(dir, "tar extracts")
	case o.has("c", "r", "u", "A", "create", "append", "update", "concatenate", "delete"):
		if f, ok := o.val("f", "file"); ok && f.s != "-" {
			w.write(f, "tar writes an archive")
		} else {
			w.add(Safe, "tar writes an archive to stdout")
		}
	default:
		w.add(Safe, "tar lists an archive")
	}
}

func unzipProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "dxP", "")
	if o.has("l", "t", "v", "Z", "p", "c") {
		w.add(Safe, "unzip lists or prints")
		return
	}
	dir, ok := o.val("d")
	if !ok {
		dir = lit(".")
	}
	w.write(dir, "unzip extracts")
}

// compressProg replaces files in place unless writing to stdout or testing.
func compressProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "SbB", "suffix")
	if o.has("c", "stdout", "to-stdout", "l", "list", "t", "test") || len(o.ops) == 0 {
		w.add(Safe, name+" writes to stdout")
		return
	}
	for _, a := range o.ops {
		w.remove(a, false, name+" replaces")
	}
}

// outFlagProg writes the value of its output flag (compilers, converters).
func outFlagProg(short, long string) handler {
	return func(w *walker, name string, args []arg) {
		o := parseOpts(args, short, long)
		if v, ok := o.val(short, long); ok {
			w.write(v, name+" writes")
			return
		}
		w.add(LocalWrite, name+" writes its output in the working directory")
	}
}

// formatter rewrites its operands when rewrites says so, else prints.
func formatter(rewrites func(opts) bool) handler {
	return func(w *walker, name string, args []arg) {
		o := parseOpts(args, "", "")
		if !rewrites(o) {
			w.add(Safe, name+" prints")
			return
		}
		if len(o.ops) == 0 {
			w.add(LocalWrite, name+" rewrites files")
		}
		w.writeAll(o.ops, name+" rewrites")
	}
}

func xxdProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "cglosn", "")
	if len(o.ops) > 1 {
		w.write(o.ops[1], "xxd writes")
		return
	}
	w.add(Safe, "xxd prints")
}

func patchProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "pdioBrDFVYzg", "directory input output backup-if-mismatch reject-file")
	if v, ok := o.val("o", "output"); ok {
		w.write(v, "patch writes")
	} else if len(o.ops) > 0 {
		w.write(o.ops[0], "patch edits")
	} else {
		w.add(LocalWrite, "patch edits the files its diff names")
	}
	if d, ok := o.val("d", "directory"); ok {
		w.write(d, "patch edits files in")
	}
}

func splitProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "abClnpt", "filter")
	if _, ok := o.val("filter"); ok {
		w.add(CodeExecution, "split --filter runs a command")
	}
	if len(o.ops) > 1 {
		w.write(o.ops[len(o.ops)-1], name+" writes")
		return
	}
	w.add(LocalWrite, name+" writes pieces in the working directory")
}

// ddProg: of= a raw device is blocked; of= from /dev/zero or random is
// destructive; other of= paths by where they land; without of= it copies to
// stdout but is never called safe.
func ddProg(w *walker, name string, args []arg) {
	var in, out string
	outSet := false
	for _, a := range args {
		if strings.HasPrefix(a.s, "if=") {
			in = a.s[3:]
		}
		if strings.HasPrefix(a.s, "of=") {
			out, outSet = a.s[3:], true
			w.write(arg{s: out, static: a.static, lead: strings.HasPrefix(out, dynMark)}, "dd writes")
		}
	}
	switch {
	case !outSet:
		w.add(LocalWrite, "dd copies raw data")
	case in == "/dev/zero" || in == "/dev/urandom" || in == "/dev/random":
		w.add(Destructive, "dd overwrites "+clip(out)+" with "+in)
	}
}
