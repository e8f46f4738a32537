//go:build !linux

package fakellm

import "errors"

// StalledListener is a TCP address where connecting never completes; it
// needs Linux.
type StalledListener struct{}

// StallConnects needs Linux, where a full accept queue drops SYNs.
func StallConnects() (*StalledListener, error) {
	return nil, errors.New("fakellm: a stalled listener needs Linux")
}

// URL is empty: there is no listener.
func (l *StalledListener) URL() string { return "" }

// Close does nothing.
func (l *StalledListener) Close() error { return nil }
