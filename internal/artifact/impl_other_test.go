//go:build !linux

package artifact

import "testing"

// openImpl is one way of opening below a root; elsewhere there is one.
type openImpl struct{ name string }

var openImpls = []openImpl{{"walk"}}

func (openImpl) use(*testing.T) {}
