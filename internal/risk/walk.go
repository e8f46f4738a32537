package risk

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// walker walks one parsed command line, collecting classes. cwd is the
// directory relative paths resolve against as far as the walk can follow
// cd; "" once it cannot.
type walker struct {
	c     *Classifier
	a     Assessment
	cwd   string
	depth int
	funcs map[string]bool // functions declared so far → whether the body changes directory
	fn    string          // the function whose body is being walked
}

func (w *walker) add(cls Class, reason string) {
	w.a = w.a.Merge(Assessment{Class: cls, Set: Of(cls), Reason: reason})
}

func (w *walker) stmts(ss []*syntax.Stmt) {
	for _, s := range ss {
		w.stmt(s)
	}
}

func (w *walker) stmt(s *syntax.Stmt) {
	if s == nil {
		return
	}
	if s.Background || s.Coprocess {
		defer w.restore(w.cwd) // runs in a subshell
	}
	for _, r := range s.Redirs {
		w.redirect(r)
	}
	if s.Cmd != nil {
		w.command(s.Cmd)
	}
}

// restore puts cwd back after a subshell.
func (w *walker) restore(cwd string) { w.cwd = cwd }

// sub walks f as a subshell: its cds do not leak out.
func (w *walker) sub(f func()) {
	defer w.restore(w.cwd)
	f()
}

// scoped walks f, which may or may not run (a branch, a loop body): if it
// changed directory, where the shell is afterwards is unknown.
func (w *walker) scoped(f func()) {
	before := w.cwd
	f()
	if w.cwd != before {
		w.cwd = ""
	}
}

func (w *walker) command(cmd syntax.Command) {
	switch x := cmd.(type) {
	case *syntax.CallExpr:
		w.call(x)
	case *syntax.BinaryCmd:
		w.binary(x)
	case *syntax.Subshell:
		w.sub(func() { w.stmts(x.Stmts) })
	case *syntax.Block:
		w.stmts(x.Stmts)
	case *syntax.IfClause:
		w.scoped(func() {
			for c := x; c != nil; c = c.Else {
				w.stmts(c.Cond)
				w.stmts(c.Then)
			}
		})
	case *syntax.WhileClause:
		w.scoped(func() { w.stmts(x.Cond); w.stmts(x.Do) })
	case *syntax.ForClause:
		w.scoped(func() {
			syntax.Walk(x.Loop, w.visit)
			w.stmts(x.Do)
		})
	case *syntax.CaseClause:
		w.word(x.Word)
		w.scoped(func() {
			for _, it := range x.Items {
				for _, p := range it.Patterns {
					w.word(p)
				}
				w.stmts(it.Stmts)
			}
		})
	case *syntax.FuncDecl:
		w.funcDecl(x)
	case *syntax.DeclClause:
		w.decl(x)
	case *syntax.TimeClause:
		w.stmt(x.Stmt)
	case *syntax.CoprocClause:
		w.sub(func() { w.stmt(x.Stmt) })
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		syntax.Walk(x, w.visit)
		w.add(Safe, "evaluates an expression")
	default:
		w.add(Unknown, "a shell construct odek does not classify")
	}
}

// binary walks && and || lists and pipelines. && runs its right side only
// after the left succeeded, so a cd on the left holds there; after || the
// directory is unknown if either side moved; pipeline parts are subshells.
func (w *walker) binary(x *syntax.BinaryCmd) {
	switch x.Op {
	case syntax.AndStmt:
		before := w.cwd
		w.stmt(x.X)
		mid := w.cwd
		w.stmt(x.Y)
		if before != mid || mid != w.cwd {
			w.cwd = "" // either side may have stopped the list
		}
	case syntax.OrStmt:
		before := w.cwd
		w.stmt(x.X)
		moved := w.cwd != before
		if moved {
			w.cwd = ""
		}
		w.scoped(func() { w.stmt(x.Y) })
		if moved {
			w.cwd = ""
		}
	default: // | and |&
		w.sub(func() { w.stmt(x.X) })
		w.sub(func() { w.stmt(x.Y) })
	}
}

// funcDecl classifies the body where it is declared (it counts whether or
// not it is called) and remembers the name. A body that calls its own
// function is a fork bomb.
func (w *walker) funcDecl(x *syntax.FuncDecl) {
	if x.Name == nil {
		w.add(Unknown, "an anonymous function")
		return
	}
	name := x.Name.Value
	outer := w.fn
	w.fn = name
	before := w.cwd
	w.stmt(x.Body)
	w.funcs[name] = w.cwd != before
	w.cwd, w.fn = before, outer
}

// decl walks declare/export/local/readonly/typeset.
func (w *walker) decl(x *syntax.DeclClause) {
	for _, as := range x.Args {
		if as.Naked && as.Name == nil {
			w.word(as.Value)
			if a := argOf(as.Value); !a.static {
				w.add(CodeExecution, x.Variant.Value+" of a name computed at run time")
			}
			continue
		}
		w.assign(as)
	}
	w.add(Safe, "sets shell variables")
}

// assign classifies one NAME=value: the value's substitutions run, and some
// names change what later commands execute.
func (w *walker) assign(as *syntax.Assign) {
	if as.Value != nil {
		w.word(as.Value)
		if v := argOf(as.Value); strings.Contains(v.s, "$(") || strings.Contains(v.s, "`") {
			w.add(CodeExecution, "stores a command substitution for later evaluation")
		}
	}
	if as.Array != nil {
		syntax.Walk(as.Array, w.visit)
	}
	if as.Index != nil {
		syntax.Walk(as.Index, w.visit)
	}
	if as.Name != nil && execVar(as.Name.Value) {
		w.add(CodeExecution, "sets "+as.Name.Value+", which changes what programs run")
	}
	if as.Name != nil && (as.Name.Value == "HOME" || as.Name.Value == "CDPATH") {
		w.cwd = ""
	}
}

// call classifies a simple command.
func (w *walker) call(x *syntax.CallExpr) {
	for _, as := range x.Assigns {
		w.assign(as)
	}
	if len(x.Args) == 0 {
		w.add(Safe, "sets shell variables")
		return
	}
	args := make([]arg, len(x.Args))
	for i, word := range x.Args {
		w.word(word)
		args[i] = argOf(word)
	}
	w.run(args)
}

// word classifies the substitutions inside a word (they run).
func (w *walker) word(x *syntax.Word) {
	if x != nil {
		syntax.Walk(x, w.visit)
	}
}

func (w *walker) visit(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.CmdSubst:
		w.sub(func() { w.stmts(x.Stmts) })
		return false
	case *syntax.ProcSubst:
		w.sub(func() { w.stmts(x.Stmts) })
		return false
	case *syntax.ParamExp:
		if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && strings.Contains(argOf(x.Exp.Word).s, "P") {
			w.add(CodeExecution, "${var@P} expands a value as a prompt, running its substitutions")
		}
	}
	return true
}

// redirect classifies where a redirection writes; reads are safe.
func (w *walker) redirect(r *syntax.Redirect) {
	w.word(r.Word)
	w.word(r.Hdoc)
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return
	case syntax.DplIn, syntax.DplOut:
		if t := argOf(r.Word); t.static && (t.s == "-" || isNumber(t.s)) {
			return // fd duplication
		}
	}
	w.write(argOf(r.Word), "redirects output")
}

func isNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
