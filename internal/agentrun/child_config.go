package agentrun

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/subagent"
)

// subagentConfig is the operator's subagent.* settings and profiles, as the
// sub-agent code needs them.
type subagentConfig struct {
	Settings       subagent.Settings
	AnnounceBudget bool
	DefaultProfile string // "" when no profile applies ("none")
	Profiles       map[string]config.Profile
}

// builtinDefaultProfile is the profile named "default" unless the global file
// defines one.
var builtinDefaultProfile = config.Profile{MaxRisk: "local_write"}

func readSubagentConfig(cfg *config.Config) *subagentConfig {
	s := cfg.Subagent
	sc := &subagentConfig{
		Settings: subagent.Settings{
			TimeoutSeconds: int(s.Timeout / time.Second), MaxIterations: s.MaxIterations,
			MaxDepth: s.MaxDepth, BudgetInherit: s.BudgetInherit,
		}.Normalized(),
		AnnounceBudget: s.AnnounceBudget,
		DefaultProfile: s.DefaultProfile,
		Profiles:       map[string]config.Profile{"default": builtinDefaultProfile},
	}
	if sc.DefaultProfile == "none" {
		sc.DefaultProfile = ""
	}
	for name, p := range cfg.Profiles {
		sc.Profiles[name] = p
	}
	return sc
}

// resolveProfile picks a child's profile: the flag, else the task file's,
// else the default profile; "" when none applies. An unknown name is an error
// that lists the known ones.
func (sc *subagentConfig) resolveProfile(flag, task string) (string, *config.Profile, error) {
	name := flag
	if name == "" {
		name = task
	}
	if name == "" {
		name = sc.DefaultProfile
	}
	if name == "" {
		return "", nil, nil
	}
	p, ok := sc.Profiles[name]
	if !ok {
		known := make([]string, 0, len(sc.Profiles))
		for k := range sc.Profiles {
			known = append(known, k)
		}
		sort.Strings(known)
		return "", nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(known, ", "))
	}
	return name, &p, nil
}
