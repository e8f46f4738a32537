package builtin

import (
	"strings"
	"testing"
)

// The Go toolchain's own words when it cannot write its caches get a hint
// naming sandbox.writable_paths and the directory; other failures none.
func TestGoCacheHint(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, out, dir string }{
		{"build cache EROFS", "go: failed to initialize build cache at /home/u/.cache/go-build: mkdir /home/u/.cache/go-build: read-only file system\n", "/home/u/.cache/go-build"},
		{"build cache EACCES", "failed to initialize build cache at /home/u/.cache/go-build: mkdir /home/u/.cache/go-build: permission denied", "/home/u/.cache/go-build"},
		{"cache entry", "go build example.com/w: open /home/u/.cache/go-build/3f/3fab-d: read-only file system", "/home/u/.cache/go-build"},
		{"module cache", "go: could not create module cache: mkdir /home/u/go/pkg/mod: permission denied", "/home/u/go/pkg/mod"},
		{"module cache entry", "go: writing stat cache: mkdir /home/u/go/pkg/mod/cache/download/x: read-only file system", "/home/u/go/pkg/mod"},
		{"GOCACHE elsewhere", "failed to initialize build cache at /srv/cache: mkdir /srv/cache: permission denied", "/srv/cache"},
		{"other failure", "mkdir /etc/x: permission denied\n--- FAIL: TestX", ""},
		{"test output", "ok  \texample.com/w\t0.01s", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := goCacheHint(tt.out)
			if tt.dir == "" {
				if h != "" {
					t.Fatalf("hint %q for output with no cache failure", h)
				}
				return
			}
			if !strings.Contains(h, "sandbox.writable_paths") || !strings.Contains(h, " "+tt.dir+";") || strings.Contains(h, "\n") {
				t.Fatalf("hint = %q, want one line naming sandbox.writable_paths and %s", h, tt.dir)
			}
		})
	}
}

func TestOnceHint(t *testing.T) {
	t.Parallel()
	var got []string
	o := &onceHint{fn: func(s string) { got = append(got, s) }}
	o.tell("a")
	o.tell("b")
	(&onceHint{}).tell("no listener")
	var none *onceHint
	none.tell("nil")
	if len(got) != 1 || got[0] != "a" {
		t.Fatalf("heard %q, want the first hint once", got)
	}
}
