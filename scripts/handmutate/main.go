// Command handmutate runs the hand-written mutations of
// scripts/hand-mutations.txt (scripts/hand-mutate.sh, make hand-mutate):
// for each it replaces one unique code snippet, runs the package's tests
// and counts the mutation killed when they fail. The mutated file is handed
// to the go command with -overlay, so the working tree is never written:
// nothing can be left modified, whatever stops the run.
//
// Usage: go run ./scripts/handmutate [-list FILE] [-threshold PCT] [dir ...]
//
//	go run ./scripts/handmutate -uncovered GREMLINS-LOG dir
//
// The second form applies the mutants gremlins reported NOT COVERED (see
// uncovered.go) and prints a verdict per mutant as gremlins does.
//
// The list is blocks separated by blank lines; '#' starts a comment line.
//
//	file: internal/risk/prog_files.go      the file to mutate
//	why:  rm -R (capital R) is recursive   what the mutation breaks
//	old:  o.has("r", "R", "recursive")     a snippet that occurs exactly once
//	new:  o.has("r", "recursive")          its replacement (may be empty)
//	run:  TestShell                        optional: go test -run pattern
//	pkg:  internal/builtin                 optional: test these packages
//	                                       (space-separated) instead of the
//	                                       file's own: where the promise is
//	                                       tested end to end (the overlay
//	                                       mutates the file in every build)
//
// Values are taken as they are, to the end of the line. For a snippet of
// several lines, oldlit: and newlit: take a Go string literal instead. A
// snippet found zero or several times, or a mutant
// that does not build, fails the run: the list must be fixed. Every entry is
// checked before any test runs, so a stale list fails at once, naming each
// stale entry, instead of after an hour of mutants; -check does only that
// (the package's own test runs it on every go test, so a code change that
// leaves an entry behind fails the suite).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// defaultList is the checked-in list, relative to the module root.
const defaultList = "scripts/hand-mutations.txt"

type mutation struct {
	line                 int // of the block in the list, for messages
	file, why, old, repl string
	run                  string
	pkgs                 []string // packages to test ("" = the file's own)
}

func (m mutation) dir() string { return filepath.Dir(m.file) }

func main() {
	list := flag.String("list", defaultList, "the mutation list")
	threshold := flag.Float64("threshold", 90, "percentage of mutations each package must kill")
	timeout := flag.Duration("timeout", 5*time.Minute, "longest test run of one mutant (a hang counts as killed)")
	checkOnly := flag.Bool("check", false, "only check that every entry matches the code, run no tests")
	uncovered := flag.String("uncovered", "", "a gremlins log: apply its NOT COVERED mutants to the package dir given, instead of the list")
	flag.Parse()
	if *uncovered != "" {
		os.Exit(uncoveredMain(*uncovered, flag.Args(), *timeout))
	}
	ms, err := parse(*list)
	if err != nil {
		fmt.Fprintln(os.Stderr, "handmutate:", err)
		os.Exit(2)
	}
	if dirs := flag.Args(); len(dirs) > 0 {
		ms = slices.DeleteFunc(ms, func(m mutation) bool { return !slices.Contains(dirs, m.dir()) })
		if len(ms) == 0 {
			fmt.Printf("handmutate: %s lists no mutation of %v\n", *list, dirs)
			return
		}
	}
	if problems := checkAll(ms); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "STALE    ", p)
		}
		fmt.Fprintf(os.Stderr, "handmutate: %d of %d entries of %s no longer match the code: fix them first\n", len(problems), len(ms), *list)
		os.Exit(2)
	}
	if *checkOnly {
		fmt.Printf("handmutate: all %d entries match the code\n", len(ms))
		return
	}
	tmp, err := os.MkdirTemp("", "odek-handmutate-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "handmutate:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runAll(ctx, ms, tmp, *timeout, *threshold)
	stop()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// uncoveredMain runs -uncovered on the one package dir given.
func uncoveredMain(log string, dirs []string, timeout time.Duration) int {
	if len(dirs) != 1 {
		fmt.Fprintln(os.Stderr, "handmutate: -uncovered takes the package dir gremlins ran on, and only it")
		return 2
	}
	tmp, err := os.MkdirTemp("", "odek-handmutate-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "handmutate:", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runUncovered(ctx, os.Stdout, log, dirs[0], tmp, timeout)
}

// runAll runs every mutation and prints the per-package summary; its result
// is the exit code.
func runAll(ctx context.Context, ms []mutation, tmp string, timeout time.Duration, threshold float64) int {
	type score struct{ killed, total int }
	scores := map[string]*score{}
	var order []string
	bad := false
	for i, m := range ms {
		if ctx.Err() != nil {
			fmt.Println("handmutate: interrupted")
			return 130
		}
		verdict, detail := runOne(ctx, m, filepath.Join(tmp, strconv.Itoa(i)), timeout)
		fmt.Printf("%-9s %s:%d %s — %s\n", verdict, m.file, m.line, oneLine(m.old), m.why)
		if detail != "" {
			fmt.Printf("          %s\n", detail)
		}
		s := scores[m.dir()]
		if s == nil {
			s = &score{}
			scores[m.dir()] = s
			order = append(order, m.dir())
		}
		switch verdict {
		case "KILLED", "TIMEOUT":
			s.killed++
			s.total++
		case "SURVIVED":
			s.total++
		default:
			bad = true
		}
	}
	fmt.Printf("\n== hand mutations killed per package (threshold %.0f%%)\n", threshold)
	code := 0
	for _, d := range order {
		s := scores[d]
		pct := 100.0
		if s.total > 0 {
			pct = 100 * float64(s.killed) / float64(s.total)
		}
		fmt.Printf("%-22s killed %3d of %3d  %6.2f%%\n", d, s.killed, s.total, pct)
		if pct < threshold {
			code = 1
		}
	}
	if bad {
		fmt.Println("some entries are stale or do not build: fix scripts/hand-mutations.txt")
		code = 1
	}
	return code
}

// checkAll reports every mutation whose file is missing or whose snippet
// does not occur exactly once in it, as "file:line: problem".
func checkAll(ms []mutation) []string {
	var problems []string
	for _, m := range ms {
		if err := m.check(); err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d %s — %v", m.file, m.line, oneLine(m.old), err))
		}
	}
	return problems
}

// check reports why m cannot be applied to the code as it is now, if it
// cannot.
func (m mutation) check() error {
	src, err := os.ReadFile(m.file)
	if err != nil {
		return err
	}
	if n := strings.Count(string(src), m.old); n != 1 {
		return fmt.Errorf("the snippet occurs %d times in %s (want exactly once)", n, m.file)
	}
	if m.old == m.repl {
		return errors.New("old and new are the same: nothing is mutated")
	}
	return nil
}

// runOne applies m through an overlay in dir and runs the package's tests.
func runOne(ctx context.Context, m mutation, dir string, timeout time.Duration) (verdict, detail string) {
	if err := m.check(); err != nil {
		return "STALE", err.Error()
	}
	src, err := os.ReadFile(m.file)
	if err != nil {
		return "STALE", err.Error()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "ERROR", err.Error()
	}
	abs, err := filepath.Abs(m.file)
	if err != nil {
		return "ERROR", err.Error()
	}
	mutated := filepath.Join(dir, filepath.Base(m.file))
	if err := os.WriteFile(mutated, []byte(strings.Replace(string(src), m.old, m.repl, 1)), 0o600); err != nil {
		return "ERROR", err.Error()
	}
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: mutated}})
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o600); err != nil {
		return "ERROR", err.Error()
	}
	args := []string{"test", "-count=1", "-overlay", ov}
	if m.run != "" {
		args = append(args, "-run", m.run)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pkgs := []string{"./" + m.dir()}
	if len(m.pkgs) > 0 {
		pkgs = nil
		for _, p := range m.pkgs {
			pkgs = append(pkgs, "./"+p)
		}
	}
	cmd := exec.CommandContext(tctx, "go", append(args, pkgs...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "SURVIVED", ""
	case tctx.Err() != nil && ctx.Err() == nil:
		return "TIMEOUT", ""
	case strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "[setup failed]"):
		return "NOBUILD", firstLines(string(out), 3)
	case errors.As(err, &ee):
		return "KILLED", ""
	default:
		return "ERROR", err.Error()
	}
}

// parse reads the mutation list.
func parse(path string) ([]mutation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ms []mutation
	var cur *mutation
	seen := map[string]bool{}
	flush := func() error {
		if cur == nil {
			return nil
		}
		if cur.file == "" || cur.old == "" || cur.why == "" || !seen["new"] {
			return fmt.Errorf("%s:%d: a mutation needs file, why, old and new", path, cur.line)
		}
		ms = append(ms, *cur)
		cur, seen = nil, map[string]bool{}
		return nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want key: value, got %q", path, n, line)
		}
		val = strings.TrimPrefix(val, " ")
		if k, lit := strings.CutSuffix(key, "lit"); lit && (k == "old" || k == "new") {
			if val, err = strconv.Unquote(val); err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %v", path, n, key, err)
			}
			key = k
		}
		if cur == nil {
			cur = &mutation{line: n}
		}
		if seen[key] {
			return nil, fmt.Errorf("%s:%d: %s given twice", path, n, key)
		}
		seen[key] = true
		switch key {
		case "file":
			cur.file = val
		case "why":
			cur.why = val
		case "old":
			cur.old = val
		case "new":
			cur.repl = val
		case "run":
			cur.run = val
		case "pkg":
			cur.pkgs = strings.Fields(val)
		default:
			return nil, fmt.Errorf("%s:%d: unknown key %q (want file, why, old, oldlit, new, newlit, run or pkg)", path, n, key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return ms, nil
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], " | ")
}
