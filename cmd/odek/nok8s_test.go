package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOdekLinksNoKubernetes: client-go registers every API group's types at
// init and is tens of megabytes; odek must never link it, whatever its
// config says. The kubernetes runner is the separate odek-kube program
// (docs/SCALE.md), and scripts/layering.sh keeps k8s.io imports in
// internal/kube and cmd/odek-kube.
func TestOdekLinksNoKubernetes(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "k8s.io/") || strings.HasPrefix(pkg, "sigs.k8s.io/") || strings.HasSuffix(pkg, "/internal/kube") {
			t.Errorf("odek links %s", pkg)
		}
	}
}
