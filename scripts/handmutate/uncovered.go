package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// gremlins reports a mutant it cannot see run (its line is outside go's
// coverage profile: a switch case, code that runs in a re-executed test
// binary such as the sandbox's launcher) as NOT COVERED and runs none of
// it. -uncovered applies each such mutant here instead, with gremlins' own
// operator at gremlins' own position, runs the package's tests on it and
// prints the verdict as gremlins would have (KILLED, LIVED, NOT VIABLE for
// one that does not build), so scripts/mutate.sh counts them with the rest.

// notCovered matches a line of gremlins' output naming one such mutant.
var notCovered = regexp.MustCompile(`^\s*NOT COVERED\s+([A-Z_]+) at (\S+):(\d+):(\d+)\s*$`)

// uncoveredMutant is one NOT COVERED line: file relative to the package.
type uncoveredMutant struct {
	mutator   string
	file      string
	line, col int
}

func (u uncoveredMutant) String() string {
	return fmt.Sprintf("%s at %s:%d:%d", u.mutator, u.file, u.line, u.col)
}

// readUncovered reads the NOT COVERED mutants of a gremlins log, leaving
// out fixtures (testdata) and test files, which are no package code.
func readUncovered(log string) ([]uncoveredMutant, error) {
	f, err := os.Open(log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []uncoveredMutant
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := notCovered.FindStringSubmatch(sc.Text())
		if m == nil || strings.Contains(m[2], "testdata/") || strings.HasSuffix(m[2], "_test.go") {
			continue
		}
		line, _ := strconv.Atoi(m[3])
		col, _ := strconv.Atoi(m[4])
		out = append(out, uncoveredMutant{mutator: m[1], file: m[2], line: line, col: col})
	}
	return out, sc.Err()
}

// swaps are gremlins' operators: the token each turns into what.
var swaps = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL},
	"CONDITIONALS_BOUNDARY": {token.GTR: token.GEQ, token.LSS: token.LEQ, token.GEQ: token.GTR, token.LEQ: token.LSS},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.NEQ: token.EQL, token.LEQ: token.GTR, token.GTR: token.LEQ, token.LSS: token.GEQ, token.GEQ: token.LSS},
	"INCREMENT_DECREMENT":   {token.INC: token.DEC, token.DEC: token.INC},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
	"INVERT_LOGICAL":        {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":       {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
	// gremlins v0.6.0 maps %= to itself, a mutant that changes nothing;
	// here it is *=, as its ARITHMETIC_BASE turns % into *.
	"INVERT_ASSIGNMENTS":      {token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN, token.REM_ASSIGN: token.MUL_ASSIGN},
	"INVERT_BITWISE":          {token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND, token.AND_NOT: token.AND, token.SHL: token.SHR, token.SHR: token.SHL},
	"INVERT_BWASSIGN":         {token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN, token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN},
	"REMOVE_SELF_ASSIGNMENTS": {token.ADD_ASSIGN: token.ASSIGN, token.SUB_ASSIGN: token.ASSIGN, token.MUL_ASSIGN: token.ASSIGN, token.QUO_ASSIGN: token.ASSIGN, token.REM_ASSIGN: token.ASSIGN},
}

// applyAt returns src with the operator at line:col (1-based, col in
// bytes, as go/token counts) swapped as mutator says. Like gremlins, it
// changes the syntax tree's node and prints the file again, so a swap that
// changes how an expression groups keeps its grouping: the first && of
// "a && b && c" becomes "(a || b) && c", not "a || b && c".
func applyAt(src []byte, mutator string, line, col int) ([]byte, error) {
	swap, ok := swaps[mutator]
	if !ok {
		return nil, fmt.Errorf("unknown mutator %s", mutator)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if line > fset.File(f.Pos()).LineCount() {
		return nil, fmt.Errorf("no token at %d:%d", line, col)
	}
	var op *token.Token // the operator token of the node at line:col
	ast.Inspect(f, func(n ast.Node) bool {
		if op != nil || n == nil {
			return false
		}
		var pos token.Pos
		var tok *token.Token
		switch x := n.(type) {
		case *ast.BinaryExpr:
			pos, tok = x.OpPos, &x.Op
		case *ast.UnaryExpr:
			pos, tok = x.OpPos, &x.Op
		case *ast.IncDecStmt:
			pos, tok = x.TokPos, &x.Tok
		case *ast.AssignStmt:
			pos, tok = x.TokPos, &x.Tok
		case *ast.BranchStmt:
			pos, tok = x.TokPos, &x.Tok
		default:
			return true
		}
		if p := fset.Position(pos); p.Line == line && p.Column == col {
			op = tok
		}
		return true
	})
	if op == nil {
		return nil, fmt.Errorf("no operator starts at %d:%d", line, col)
	}
	to, ok := swap[*op]
	if !ok {
		return nil, fmt.Errorf("%s does not apply to %q at %d:%d", mutator, *op, line, col)
	}
	*op = to
	var out bytes.Buffer
	if err := printer.Fprint(&out, fset, f); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// runUncovered applies every NOT COVERED mutant of log to the package in
// dir and prints a verdict line per mutant; its result is the exit code
// (2: the log or a position cannot be read; verdicts never fail it).
func runUncovered(ctx context.Context, w io.Writer, log, dir, tmp string, timeout time.Duration) int {
	us, err := readUncovered(log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "handmutate:", err)
		return 2
	}
	for i, u := range us {
		if ctx.Err() != nil {
			fmt.Fprintln(w, "handmutate: interrupted")
			return 130
		}
		path := filepath.Join(dir, u.file)
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "handmutate:", err)
			return 2
		}
		mutated, err := applyAt(src, u.mutator, u.line, u.col)
		if err != nil {
			fmt.Fprintf(os.Stderr, "handmutate: %s: %v (is the log from this code?)\n", path, err)
			return 2
		}
		m := mutation{file: path, why: u.String(), old: string(src), repl: string(mutated)}
		verdict, detail := runOne(ctx, m, filepath.Join(tmp, strconv.Itoa(i)), timeout)
		fmt.Fprintf(w, "%13s %s\n", gremlinsVerdict(verdict), u)
		if detail != "" && verdict != "NOBUILD" {
			fmt.Fprintf(w, "          %s\n", detail)
		}
	}
	return 0
}

// gremlinsVerdict names a verdict as gremlins does (a mutant that does not
// build is NOT VIABLE; one whose tests hang past the timeout counts as
// killed, as in the hand mutations).
func gremlinsVerdict(v string) string {
	switch v {
	case "KILLED", "TIMEOUT":
		return "KILLED"
	case "SURVIVED":
		return "LIVED"
	case "NOBUILD":
		return "NOT VIABLE"
	}
	return v
}
