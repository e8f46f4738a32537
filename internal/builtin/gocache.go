package builtin

import (
	"regexp"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/untrusted"
)

// goCacheDenied finds, in a command's output, the Go toolchain failing to
// write its build or module cache: "failed to initialize build cache at
// D: mkdir D: read-only file system", "go: could not create module cache:
// mkdir D: permission denied", "open D/go-build/…: read-only file system".
// Group 1 is the directory or file the toolchain could not write. It and
// goCacheLead are compiled on first use: compiling them was most of what
// every odek process spent initialising this package.
var goCacheDenied = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:mkdir|open|create) ([^\s:]*(?:go-build|/pkg/mod)[^\s:]*): (?:read-only file system|permission denied)`)
})

// goCacheLead is what the toolchain says before a path it could not
// create when the path itself names no cache (GOCACHE or GOMODCACHE set
// elsewhere).
var goCacheLead = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:failed to initialize build cache at|could not create module cache:|writing stat cache:) (?:mkdir |open )?([^\s:]+)[^\n]*(?:read-only file system|permission denied)`)
})

// goCacheHint is the line added to the result of a sandboxed command the
// sandbox kept from writing a Go cache, naming the directory when the
// output does; "" when the output shows no such failure.
func goCacheHint(out string) string {
	path := ""
	if m := goCacheDenied().FindStringSubmatch(out); m != nil {
		path = m[1]
	} else if m := goCacheLead().FindStringSubmatch(out); m != nil {
		path = m[1]
	} else {
		return ""
	}
	if i := strings.Index(path, "go-build"); i >= 0 {
		path = path[:i+len("go-build")]
	} else if i := strings.Index(path, "/pkg/mod"); i >= 0 {
		path = path[:i+len("/pkg/mod")]
	}
	return "hint: the sandbox kept the Go toolchain from writing its cache " + untrusted.OneLine(path, 200) +
		"; the operator can add that directory to sandbox.writable_paths, or the command can set GOCACHE and GOMODCACHE to a directory under the working directory or $TMPDIR"
}

// onceHint passes the first hint to fn, and only the first.
type onceHint struct {
	once sync.Once
	fn   func(string)
}

func (o *onceHint) tell(hint string) {
	if o == nil || o.fn == nil {
		return
	}
	o.once.Do(func() { o.fn(hint) })
}
