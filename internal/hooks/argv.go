package hooks

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// directArgv is the argument vector of a command line that is one plain
// command: a script or a program and literal arguments ("$CLAUDE_PROJECT_DIR"
// filled in), as most hooks are. Such a command runs without a bash in
// front of it, which on a busy machine is most of a hook's cost; bash would
// run it the same way (it execs a lone command). Anything else — a pipe,
// a redirection, a variable, a glob, "~", a builtin or keyword, BASH_ENV
// in the environment — returns false and runs under bash -c, as does a
// direct start that fails (a script without a #! line, say).
func directArgv(command, dir string, env []string) ([]string, bool) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "BASH_ENV=") {
			return nil, false // bash -c would source it first
		}
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) != 1 || len(f.Last) > 0 {
		return nil, false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, false
	}
	argv := make([]string, 0, len(call.Args))
	spec := Spec{Dir: dir}
	for _, w := range call.Args {
		if !plainWord(w) {
			return nil, false
		}
		s, ok := spec.literal(w.Parts)
		if !ok {
			return nil, false
		}
		argv = append(argv, s)
	}
	if argv[0] == "" || shellWord(argv[0]) {
		return nil, false
	}
	return argv, true
}

// plainWord reports a word bash would not expand beyond its quotes and the
// project directory's variables: no glob, tilde or brace in its unquoted
// parts.
func plainWord(w *syntax.Word) bool {
	for i, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			continue
		}
		if strings.ContainsAny(lit.Value, "*?[{\\") || (i == 0 && strings.HasPrefix(lit.Value, "~")) {
			return false
		}
	}
	return true
}

// shellWords are bash's keywords and builtins: a command named so is
// bash's own, not a program's.
const shellWords = ` ! [[ ]] { } case do done elif else esac fi for function if in select then time until while
 . : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo
 enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd
 printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type
 typeset ulimit umask unalias unset wait `

func shellWord(w string) bool {
	return strings.Contains(shellWords, " "+w+" ") || strings.Contains(shellWords, " "+w+"\n")
}
