package builtin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/sandbox"
)

// TestSandboxNormalWork: the everyday work of a coding agent still passes
// under the default sandbox, with the cache paths docs/SECURITY.md
// documents as sandbox.writable_paths (the Go build cache here).
func TestSandboxNormalWork(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	gocache := goEnv(t, "GOCACHE")
	j := newJail(t, true, func(p *sandbox.Policy) { p.Writable = append(p.Writable, gocache) })
	mustWrite(t, filepath.Join(j.ws, "go.mod"), "module example.com/w\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(j.ws, "w.go"), "package main\n\nfunc main() { println(add(1, 2)) }\n\nfunc add(a, b int) int { return a + b }\n")
	mustWrite(t, filepath.Join(j.ws, "w_test.go"), "package main\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n")
	goenv := "export GOCACHE=" + gocache + " GOMODCACHE=" + goEnv(t, "GOMODCACHE") + " GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPATH=$TMPDIR/gopath; "
	cases := []struct{ name, cmd, want, needs string }{
		{"go build", goenv + "go build -o w . && ./w", "3", "go"},
		{"go test", goenv + "go test ./...", "ok", "go"},
		{"git commit", "git init -q . && git add -A && git commit -q -m init && git log --oneline | wc -l", "1", "git"},
		{"mv and rm inside", "mkdir -p d/e && cp a d/e/x && mv d/e/x d/y && rm -r d && echo done", "done", ""},
		{"temp dir", `f=$(mktemp) && echo hi > "$f" && cat "$f"`, "hi", ""},
		{"npm test", "printf '{\"name\":\"w\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node t.js\"}}' > package.json && " +
			"echo 'console.log(\"npm-ok\")' > t.js && npm_config_cache=$TMPDIR/npm npm_config_update_notifier=false npm test", "npm-ok", "npm"},
		{"read outside", "head -c 4 /etc/hostname >/dev/null && ls / >/dev/null && ls ~ >/dev/null && echo read", "read", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.needs != "" {
				if _, err := exec.LookPath(c.needs); err != nil {
					t.Skipf("%s is not installed", c.needs)
				}
			}
			out := j.run(c.cmd, 120)
			if !strings.Contains(out, "exit code: 0") || !strings.Contains(out, c.want) {
				t.Errorf("want exit 0 and %q:\n%s", c.want, out)
			}
		})
	}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Skipf("go env %s: %v", name, err)
	}
	dir := strings.TrimSpace(string(out))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skip(err)
	}
	return dir
}

// TestSandboxGoCacheHint: a real go build whose cache the sandbox keeps
// read-only fails as Go says, and the result names sandbox.writable_paths.
func TestSandboxGoCacheHint(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	j := newJail(t, true, nil)
	mustWrite(t, filepath.Join(j.ws, "go.mod"), "module example.com/w\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(j.ws, "w.go"), "package main\n\nfunc main() {}\n")
	out := j.run("export GOCACHE=$HOME/.cache/go-build GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPATH=$TMPDIR/gopath; go build -o w .", 120)
	if strings.Contains(out, "exit code: 0") || !strings.Contains(out, "hint: the sandbox kept the Go toolchain from writing its cache "+j.home+"/.cache/go-build; ") ||
		!strings.Contains(out, "sandbox.writable_paths") {
		t.Fatalf("want a failed build with the cache hint:\n%s", out)
	}
}
