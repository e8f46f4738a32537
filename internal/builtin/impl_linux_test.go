package builtin

import (
	"testing"

	"github.com/odek-run/odek/internal/safepath"
)

// openImpl is one way internal/safepath opens below a directory; the race
// tests run under each.
type openImpl struct {
	name string
	walk bool
}

// openImpls are openat2 and the component walk used where openat2 is missing.
var openImpls = []openImpl{{"openat2", false}, {"walk", true}}

// use selects the implementation until the test ends. Tests that call it
// must not run in parallel: the switch is process-wide.
func (o openImpl) use(t *testing.T) {
	t.Helper()
	prev := safepath.ForceWalk(o.walk)
	t.Cleanup(func() { safepath.ForceWalk(prev) })
}
