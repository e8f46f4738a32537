package artifact

import "testing"

// openImpl is one way of opening below a root; tests run under each.
type openImpl struct {
	name string
	walk bool
}

// openImpls are openat2 and the component walk used where openat2 is missing.
var openImpls = []openImpl{{"openat2", false}, {"walk", true}}

// use selects the implementation until the test ends. Tests that call it
// must not run in parallel: the switch is package-wide.
func (o openImpl) use(t *testing.T) {
	t.Helper()
	prev := noOpenat2.Load()
	noOpenat2.Store(o.walk)
	t.Cleanup(func() { noOpenat2.Store(prev) })
}
