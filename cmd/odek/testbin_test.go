package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// built holds the helper programs the tests build, each once per test
// binary run however many tests ask for it: a build is seconds of the
// machine's two cores, a lookup is nothing. The directory is removed when
// the tests end (sharedM).
var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*builtBin
}

type builtBin struct {
	once sync.Once
	path string
	out  []byte
	err  error
}

// sharedM runs the tests with more of them in parallel than go test's
// default (GOMAXPROCS), unless -parallel was given, and removes the built
// programs after them. This package's parallel tests are end-to-end
// scripts and runs of odek, which spend most of their time waiting for
// processes, pipes and the fake model, not computing: at the default two
// on a 2-core machine the package used a third of the CPU.
type sharedM struct{ m *testing.M }

// parallelPerCPU is how many parallel tests run per CPU.
const parallelPerCPU = 3

func (s sharedM) Run() int {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", strconv.Itoa(parallelPerCPU*runtime.GOMAXPROCS(0)))
	}
	code := s.m.Run()
	built.mu.Lock()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	built.mu.Unlock()
	return code
}

// buildTestBinary compiles a helper program (odek itself, an MCP server)
// once for all tests, from the module root: go build -o name pkg.
func buildTestBinary(t *testing.T, name, pkg string) string {
	t.Helper()
	return buildOnce(t, name, "build", "-o", "{out}", pkg)
}

// buildOnce runs go with args ({out} replaced by the output path) the first
// time name is asked for and returns the program's path.
func buildOnce(t *testing.T, name string, args ...string) string {
	t.Helper()
	built.mu.Lock()
	if built.bins == nil {
		dir, err := os.MkdirTemp("", "odek-testbin")
		if err == nil {
			// Traversable: TestChildCannotReadParentEnviron runs odek
			// from here as another user.
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			built.mu.Unlock()
			t.Fatal(err)
		}
		built.dir, built.bins = dir, map[string]*builtBin{}
	}
	b := built.bins[name]
	if b == nil {
		b = &builtBin{path: filepath.Join(built.dir, name)}
		built.bins[name] = b
	}
	built.mu.Unlock()
	b.once.Do(func() {
		argv := make([]string, len(args))
		for i, a := range args {
			if a == "{out}" {
				a = b.path
			}
			argv[i] = a
		}
		cmd := exec.Command("go", argv...)
		cmd.Dir = filepath.Join("..", "..")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go %v: %v\n%s", args, b.err, b.out)
	}
	return b.path
}
