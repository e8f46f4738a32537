package agentrun

import (
	"maps"
	"slices"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/risk"
)

// untrustedDenied are the classes an untrusted sub-agent may never use
// (docs/SUBAGENTS.md), whatever the operator's settings say.
var untrustedDenied = []risk.Class{
	risk.Destructive, risk.CodeExecution, risk.Install, risk.SystemWrite,
	risk.NetworkEgress, risk.Unknown, risk.Blocked,
}

// childDangerous narrows the operator's risk policy for a sub-agent: it
// never prompts (non_interactive deny, so every "prompt" class is denied),
// an untrusted one is denied untrustedDenied, and every class above maxRisk
// (the stricter of the task's and the profile's; "" = none) is denied. The
// profile's allowlist entries are added: the operator wrote them. Nothing
// here can loosen the operator's settings but that allowlist.
func childDangerous(d config.Dangerous, trusted bool, maxRisk string, p *config.Profile) config.Dangerous {
	out := d
	out.NonInteractive = "deny"
	out.Classes = maps.Clone(d.Classes)
	if out.Classes == nil {
		out.Classes = map[string]string{}
	}
	deny := func(c risk.Class) { out.Classes[c.String()] = "deny" }
	if !trusted {
		for _, c := range untrustedDenied {
			deny(c)
		}
	}
	if limit, ok := lowerRisk(maxRisk, p); ok {
		for _, c := range risk.Classes() {
			if c > limit {
				deny(c)
			}
		}
	}
	if p != nil && len(p.Allowlist) > 0 {
		out.Allowlist = append(slices.Clone(d.Allowlist), p.Allowlist...)
	}
	return out
}

// lowerRisk is the stricter of the task's max_risk and the profile's.
func lowerRisk(task string, p *config.Profile) (risk.Class, bool) {
	limit, set := risk.Blocked, false
	for _, name := range []string{task, profileRisk(p)} {
		if c, ok := risk.ParseClass(name); ok && name != "" {
			limit, set = min(limit, c), true
		}
	}
	return limit, set
}

func profileRisk(p *config.Profile) string {
	if p == nil {
		return ""
	}
	return p.MaxRisk
}
