package risk

import "strings"

// registerSystem adds network clients that also write files, and system
// tools whose read-only forms are safe.
func registerSystem() {
	register(curlProg, "curl")
	register(wgetProg, "wget")
	register(copyRemote, "rsync", "scp")
	register(sshProg, "ssh", "mosh")
	register(killProg, "kill")
	register(queryForms(map[string]bool{"status": true, "is-active": true, "is-enabled": true, "is-failed": true,
		"list-units": true, "list-unit-files": true, "list-timers": true, "show": true, "cat": true, "--version": true},
		"systemctl"), "systemctl")
	register(queryForms(map[string]bool{"-l": true, "-L": true, "-s": true, "-S": true, "--list": true,
		"--listfiles": true, "--status": true, "--search": true, "-p": true, "--print-architecture": true}, "dpkg"), "dpkg", "dpkg-query")
	register(queryForms(map[string]bool{"-q": true, "-qa": true, "-qi": true, "-ql": true, "-qf": true,
		"--query": true, "--version": true}, "rpm"), "rpm")
	register(queryForms(map[string]bool{"-Q": true, "-Qi": true, "-Ql": true, "-Qs": true, "-Qe": true,
		"-Ss": true, "--query": true, "--version": true}, "pacman"), "pacman")
	register(queryForms(map[string]bool{"list": true, "info": true, "search": true, "--version": true,
		"config": true, "doctor": true, "deps": true, "leaves": true, "outdated": true}, "brew"), "brew")
	register(queryForms(map[string]bool{"-l": true, "--list": true}, "crontab"), "crontab")
	register(queryForms(map[string]bool{"--list-boots": true, "-u": true, "-b": true, "-f": true, "-n": true,
		"-k": true, "-p": true, "--since": true, "-xe": true, "-e": true}, "journalctl"), "journalctl")
	register(func(w *walker, name string, args []arg) {
		if o := parseOpts(args, "", ""); o.has("w", "write", "p", "load", "system") || len(o.ops) > 0 && strings.Contains(o.ops[0].s, "=") {
			w.add(SystemWrite, "sysctl changes kernel settings")
			return
		}
		w.add(Safe, "sysctl reads kernel settings")
	}, "sysctl")
	register(func(w *walker, name string, args []arg) {
		if ops := parseOpts(args, "F", "file").ops; len(ops) > 0 {
			w.add(SystemWrite, "hostname sets the host name")
			return
		}
		w.add(Safe, "hostname prints the host name")
	}, "hostname")
	register(func(w *walker, name string, args []arg) {
		switch firstWord(args) {
		case "s_client", "s_server", "s_time", "ocsp":
			w.add(NetworkEgress, "openssl "+firstWord(args)+" reaches the network")
		default:
			o := parseOpts(args, "", "out")
			if v, ok := o.val("out"); ok {
				w.write(v, "openssl -out writes")
				return
			}
			w.add(Safe, "openssl computes")
		}
	}, "openssl")
}

// queryForms: the listed arguments make a system tool read-only; any other
// use changes the system.
func queryForms(ok map[string]bool, name string) handler {
	return func(w *walker, _ string, args []arg) {
		for _, a := range args {
			if a.static && ok[a.s] {
				w.add(Safe, name+" "+a.s+" only reads")
				return
			}
		}
		w.add(SystemWrite, name+" changes the system")
	}
}

// curlProg reaches the network; -o/-O/--output-dir write files.
func curlProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "oKdHXuATeEbcDFmrwxyYzU", "output output-dir config data data-binary data-raw header request user upload-file referer cert cookie cookie-jar dump-header form max-time range write-out proxy proxy-user")
	w.add(NetworkEgress, "curl reaches the network")
	for _, f := range []string{"o", "output", "D", "dump-header", "c", "cookie-jar"} {
		if v, ok := o.vals[f]; ok && v.s != "-" {
			w.write(v, "curl writes")
		}
	}
	if d, ok := o.val("output-dir"); ok {
		w.write(d, "curl writes into")
	} else if o.has("O", "remote-name", "remote-name-all") {
		w.write(lit("."), "curl writes")
	}
	if v, ok := o.val("T", "upload-file"); ok && v.s != "-" {
		w.add(NetworkEgress, "curl uploads "+clip(v.s))
	}
}

// wgetProg reaches the network and saves into the working directory unless
// told where (-O FILE, -P DIR, -O - for stdout).
func wgetProg(w *walker, name string, args []arg) {
	o := parseOpts(args, "OPoaiBeTtwQUlAR", "output-document directory-prefix output-file append-output input-file base execute timeout tries wait quota user-agent level accept reject")
	w.add(NetworkEgress, "wget reaches the network")
	switch v, ok := o.val("O", "output-document"); {
	case ok && v.s == "-":
	case ok:
		w.write(v, "wget writes")
	default:
		dir, ok := o.val("P", "directory-prefix")
		if !ok {
			dir = lit(".")
		}
		w.write(dir, "wget saves into")
	}
	for _, f := range []string{"o", "output-file", "a", "append-output"} {
		if v, ok := o.vals[f]; ok {
			w.write(v, "wget logs to")
		}
	}
}

// copyRemote: rsync and scp reach the network when an operand names a host;
// the last operand is written when it is local.
func copyRemote(w *walker, name string, args []arg) {
	o := parseOpts(args, "eiFlPSoJcB", "rsh rsync-path exclude include filter files-from password-file log-file")
	if v, ok := o.val("e", "rsh", "rsync-path", "S"); ok && (!v.static || strings.Fields(v.s + " x")[0] != "ssh") {
		w.add(CodeExecution, name+" runs a program given on the command line ("+clip(v.s)+")")
	}
	if len(o.ops) == 0 {
		w.add(NetworkEgress, name+" copies")
		return
	}
	for _, a := range o.ops {
		if isRemote(a.s) {
			w.add(NetworkEgress, name+" reaches "+clip(hostOf(a.s)))
		}
	}
	dest := o.ops[len(o.ops)-1]
	if !isRemote(dest.s) {
		w.write(dest, name+" writes")
	}
	if o.has("delete", "delete-before", "delete-after", "delete-during", "remove-source-files") {
		w.remove(dest, true, name+" --delete deletes in")
	}
}

// isRemote reports an operand rsync and scp take for a host: rsync://…, or a
// colon before any slash (host:path, host::module); /etc/x::y is a local path.
func isRemote(s string) bool {
	if strings.HasPrefix(s, "rsync://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
}

func hostOf(s string) string {
	h, _, _ := strings.Cut(strings.TrimPrefix(s, "rsync://"), ":")
	return h
}

// sshProg reaches a host; a remote command is classified too (it runs on
// that host); -o ProxyCommand/LocalCommand run programs here.
func sshProg(w *walker, name string, args []arg) {
	w.add(NetworkEgress, name+" reaches another host")
	const vals = "BbcDEeFIiJLlmOoPpQRSWw"
	i := commandStart(args, vals, "")
	o := parseOpts(args[:i], vals, "")
	if v, ok := o.val("o"); ok {
		k := strings.ToLower(v.s)
		if !v.static || strings.Contains(k, "command") || strings.Contains(k, "proxy") {
			w.add(CodeExecution, name+" -o "+clip(v.s)+" runs a program here")
		}
	}
	if i+1 < len(args) {
		s, static := joined(args[i+1:])
		w.nested(arg{s: s, static: static})
	}
}

// killProg signals processes; kill -1 (every process) is destructive.
func killProg(w *walker, name string, args []arg) {
	for i, a := range args {
		if a.static && a.s == "-1" && i > 0 {
			w.add(Destructive, "kill -1 signals every process")
			return
		}
		if a.static && (a.s == "-l" || a.s == "-L") {
			w.add(Safe, "kill -l lists signals")
			return
		}
	}
	w.add(SystemWrite, "kill signals processes")
}
