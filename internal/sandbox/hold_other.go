//go:build !linux

package sandbox

import "os"

// hold has nothing to open where there is no Landlock.
func (p *Policy) hold() ([]string, error) {
	p.held, p.Launch = nil, nil
	return nil, nil
}

func (h *holder) build() (*os.File, uint32, error) { return nil, 0, ErrUnsupported }

func (p Policy) launchFiles() ([]*os.File, *LaunchInfo, error) { return nil, nil, nil }
