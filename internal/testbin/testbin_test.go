package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A program is built once however often it is asked for, runs, and is
// gone after Cleanup; a failed build says why.
func TestBuildOnceAndCleanup(t *testing.T) {
	src := filepath.Join(t.TempDir(), "hello.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() { println(\"hi\") }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := Build(t, "hello", src)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if again := Build(t, "hello", src); again != path {
		t.Fatalf("second build at %s, first at %s", again, path)
	}
	if st2, _ := os.Stat(path); !st2.ModTime().Equal(st.ModTime()) {
		t.Fatal("the program was built twice")
	}
	if out, err := exec.Command(path).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "hi" {
		t.Fatalf("run: %v %q", err, out)
	}
	if _, err := Program("broken", nil, "build", "-o", "{out}", filepath.Join(t.TempDir(), "none.go")); err == nil || !strings.Contains(err.Error(), "go build") {
		t.Fatalf("a failed build: %v", err)
	}
	Cleanup()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("after Cleanup: %v", err)
	}
}

func TestRoot(t *testing.T) {
	if _, err := os.Stat(filepath.Join(Root(), "go.mod")); err != nil {
		t.Fatalf("Root() = %s: %v", Root(), err)
	}
}
