package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Two pods mount the same target: the second starts once the first made
// the directory. The first ending must not remove it while the second
// runs (the kernel would detach the second pod's bind mount); the last
// one ending removes it.
func TestMountPointsOutliveTheirMaker(t *testing.T) {
	target := filepath.Join(t.TempDir(), "odek", "artifacts")
	p := &provider{created: map[string]int{}}
	a, b := &podRun{}, &podRun{}
	p.makeMountPoints(a, []bindMount{{Target: target}})
	p.makeMountPoints(b, []bindMount{{Target: target}})
	p.releaseMountPoints(a)
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the first pod's end removed the second pod's mount point: %v", err)
	}
	p.releaseMountPoints(b)
	if _, err := os.Stat(filepath.Dir(target)); !os.IsNotExist(err) {
		t.Fatalf("the mount points outlived both pods: %v", err)
	}
}
