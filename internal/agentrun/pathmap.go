package agentrun

import (
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/builtin"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/sandbox"
)

// toolAccess is the sandbox's map the path tools obey (sandbox.Access):
// built from the shell's own policy where the kernel sandbox holds it,
// and where it does not (sandbox.mode off, no launcher) from the policy
// workspace-write would have — the workspace, sandbox.writable_paths and
// the protected paths, but no private temp dir, since the shell then keeps
// the operator's TMPDIR — or read-only, when that is what was asked. A
// parent's sandbox narrows it as it narrows the shell's.
func (s *sandboxState) toolAccess(ios *iostreams.IOStreams, conf *runConf) (*sandbox.Access, error) {
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
		return nil, errclass.Wrap(errclass.SetupError, err)
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
		return nil, errclass.Wrap(errclass.SetupError, fmt.Errorf("the path tools' map: %w", err))
	}
	// Its identities are taken now, beside the rest of the start-up,
	// not on the first path tool call (nor before the first request).
	go a.Prepare()
	return a, nil
}

// mapDenial counts a call the map refused as the risk policy's refusals
// are counted (the report's denials, --fail-on-denial) and says so on
// stderr through warn, on one line of at most maxMapWarning runes; its
// other control characters are stderr's filter's to render.
func mapDenial(d *runview.Denials, warn func(string)) func(builtin.Denial) {
	return func(den builtin.Denial) {
		d.Add(policy.Outcome{Call: policy.Call{Tool: den.Tool}, Class: den.Class, Why: den.Reason})
		msg := strings.ReplaceAll(den.Message, "\n", `\n`)
		if r := []rune(msg); len(r) > maxMapWarning {
			msg = string(r[:maxMapWarning]) + "…"
		}
		warn(msg)
	}
}

// maxMapWarning caps the warning of a map refusal (the model's path is in
// it twice, as given and as resolved).
const maxMapWarning = 600
