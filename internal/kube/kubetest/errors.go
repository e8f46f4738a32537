package kubetest

import "errors"

// ErrToolMissing means a program of the plane is not in bin/tools and
// could not be built there.
var ErrToolMissing = errors.New("kubetest: a control plane program is missing")

// ErrNotReady means a component did not become ready in time; the error
// names it and ends with the tail of its log.
var ErrNotReady = errors.New("kubetest: control plane not ready")
