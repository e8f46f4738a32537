package kubetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// Version is the Kubernetes release the plane's programs are built from
// (testdata/plane/go.mod pins k8s.io/kubernetes and the k8s.io modules).
const Version = "v1.37.2"

// kubePrograms are built from k8s.io/kubernetes into bin/tools by
// scripts/kube-tools.sh, named NAME-Version.
var kubePrograms = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// tools are the paths of the plane's programs.
type tools struct {
	etcd, apiserver, controllerManager, scheduler, nodeAgent string
}

var found struct {
	once  sync.Once
	tools tools
	err   error
}

// findTools returns the plane's programs, building what is missing: the
// Kubernetes programs into bin/tools (scripts/kube-tools.sh: minutes when
// the Go build cache is cold) and the node agent there too (go build, once
// per test binary, so it always matches its source: seconds when cached).
// etcd is Debian's etcd-server, found on PATH.
func findTools() (tools, error) {
	found.once.Do(func() { found.tools, found.err = buildTools() })
	return found.tools, found.err
}

func buildTools() (tools, error) {
	root := moduleRoot()
	var t tools
	var err error
	if t.etcd, err = exec.LookPath("etcd"); err != nil {
		return t, fmt.Errorf("%w: etcd is not on PATH (apt-get install etcd-server; .ci/run installs it)", ErrToolMissing)
	}
	dir := os.Getenv("ODEK_KUBE_TOOLS")
	if dir == "" {
		dir = filepath.Join(root, "bin", "tools")
	}
	paths := make([]string, len(kubePrograms))
	missing := false
	for i, name := range kubePrograms {
		paths[i] = filepath.Join(dir, name+"-"+Version)
		if _, err := os.Stat(paths[i]); err != nil {
			missing = true
		}
	}
	if missing {
		cmd := exec.Command(filepath.Join(root, "scripts", "kube-tools.sh"), dir)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return t, fmt.Errorf("%w: scripts/kube-tools.sh (make kube-tools): %v\n%s", ErrToolMissing, err, out)
		}
	}
	t.apiserver, t.controllerManager, t.scheduler = paths[0], paths[1], paths[2]
	t.nodeAgent = filepath.Join(dir, "kube-nodeagent")
	cmd := exec.Command("go", "build", "-o", t.nodeAgent, ".")
	cmd.Dir = filepath.Join(root, "internal", "kube", "kubetest", "testdata", "nodeagent")
	cmd.Env = append(os.Environ(), "GOWORK=off") // its own module, never odek's
	if out, err := cmd.CombinedOutput(); err != nil {
		return t, fmt.Errorf("%w: building the test node agent: %v\n%s", ErrToolMissing, err, out)
	}
	return t, nil
}

// moduleRoot is odek's module root (this file is internal/kube/kubetest/tools.go).
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}
