// Package testbin builds the programs tests run — odek itself, the MCP
// server fixtures, the demo's tools, peers — once per test binary however
// many tests ask for one, in one temporary directory that Cleanup removes.
// It is for tests only: no package's non-test code may import it
// (scripts/layering.sh lists it as nobody's import).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// built holds every program, by name: a build is seconds of the machine's
// cores, a lookup is nothing.
var built struct {
	mu    sync.Mutex
	dir   string
	progs map[string]*program
}

type program struct {
	once sync.Once
	path string
	out  []byte
	err  error
}

// Root is the module's root directory (where go.mod is).
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if ok && filepath.IsAbs(file) {
		return filepath.Dir(filepath.Dir(filepath.Dir(file))) // internal/testbin/testbin.go
	}
	dir, _ := os.Getwd()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
	}
	return dir
}

// Program builds the program name the first time it is asked for and
// returns its path: the go command with args, run at the module root with
// env added to the environment, "{out}" in args standing for the path
// (go build -o {out} ./cmd/odek; go test -c -o {out} ./cmd/odek). A name
// is one program: callers give different builds different names.
func Program(name string, env []string, args ...string) (string, error) {
	built.mu.Lock()
	if built.progs == nil {
		dir, err := os.MkdirTemp("", "odek-testbin")
		if err == nil {
			// Traversable: a test may run a program from here as
			// another user (TestChildCannotReadParentEnviron).
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			built.mu.Unlock()
			return "", err
		}
		built.dir, built.progs = dir, map[string]*program{}
	}
	p := built.progs[name]
	if p == nil {
		p = &program{path: filepath.Join(built.dir, name)}
		built.progs[name] = p
	}
	built.mu.Unlock()
	p.once.Do(func() {
		argv := make([]string, len(args))
		for i, a := range args {
			argv[i] = strings.ReplaceAll(a, "{out}", p.path)
		}
		cmd := exec.Command(goTool(), argv...)
		cmd.Dir = Root()
		cmd.Env = append(os.Environ(), env...)
		p.out, p.err = cmd.CombinedOutput()
		if p.err != nil {
			p.err = fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), p.err, p.out)
		}
	})
	return p.path, p.err
}

// Build is go build -o {out} [flags] pkg for a test (pkg relative to the
// module root: ./cmd/odek, ./internal/mcpclient/testdata/artifact_server.go);
// a failed build fails tb.
func Build(tb testing.TB, name, pkg string, flags ...string) string {
	tb.Helper()
	args := append(append([]string{"build"}, flags...), "-o", "{out}", pkg)
	path, err := Program(name, nil, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// Release builds pkg as `make build` ships it (static, stripped, no paths
// of this machine), for benchmarks that measure the real executable; its
// name is "release-"+name, apart from Build's.
func Release(tb testing.TB, name, pkg string) string {
	tb.Helper()
	path, err := Program("release-"+name, []string{"CGO_ENABLED=0"},
		"build", "-trimpath", "-ldflags=-s -w", "-o", "{out}", pkg)
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// Cleanup removes every program built so far; a package's TestMain calls
// it once its tests are done (Main does).
func Cleanup() {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	built.dir, built.progs = "", nil
}

// Main runs m's tests and then Cleanup, returning the exit code:
// os.Exit(testbin.Main(m)) is a TestMain.
func Main(m *testing.M) int {
	defer Cleanup()
	return m.Run()
}

// goTool is the go command on PATH (go test's own), else GOROOT's.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}
