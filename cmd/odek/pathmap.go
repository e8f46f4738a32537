package main

import (
	"fmt"

	"github.com/odek-run/odek/internal/builtin"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/untrusted"
)

// toolAccess is the sandbox's map the path tools obey (sandbox.Access):
// built from the shell's own policy where the kernel sandbox holds it,
// and where it does not (sandbox.mode off, no launcher) from the policy
// workspace-write would have — the workspace, sandbox.writable_paths and
// the protected paths, but no private temp dir, since the shell then keeps
// the operator's TMPDIR — or read-only, when that is what was asked. A
// parent's sandbox narrows it as it narrows the shell's.
func (s *sandboxState) toolAccess(ios *IOStreams, conf *runConf) (*sandbox.Access, error) {
	if p := s.policy; p != nil && p.Sandboxed() {
		return s.access(*p)
	}
	limit := conf.place.sandboxLimit
	mode, _, _, err := s.mode(limit)
	if err != nil {
		return nil, err
	}
	if mode != sandbox.ModeReadOnly {
		mode = sandbox.ModeWorkspaceWrite
	}
	p, err := s.configuredPolicy(ios, mode, false, false, "")
	if err != nil {
		return nil, asSetup(err)
	}
	if limit != nil {
		narrowed := p.Within(*limit)
		p = &narrowed
	}
	return s.access(*p)
}

func (s *sandboxState) access(p sandbox.Policy) (*sandbox.Access, error) {
	a, err := sandbox.NewAccess(p)
	if err != nil {
		return nil, asSetup(fmt.Errorf("the path tools' map: %w", err))
	}
	// Its identities are taken now, beside the rest of the start-up,
	// not on the first path tool call (nor before the first request).
	go a.Prepare()
	return a, nil
}

// mapDenial counts a call the map refused as the risk policy's refusals
// are counted (the report's denials, --fail-on-denial) and says so on
// stderr through warn.
func (d *denials) mapDenial(warn func(string)) func(builtin.Denial) {
	return func(den builtin.Denial) {
		d.add(policy.Outcome{Call: policy.Call{Tool: den.Tool}, Class: den.Class, Why: den.Reason})
		warn(termLine(fmt.Sprintf("denied: %s %q: %s", den.Tool, untrusted.OneLine(den.What, 200), den.Reason)))
	}
}
