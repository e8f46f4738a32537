package config

import (
	"fmt"
	"slices"
	"sort"
)

// offOnly is planning.enabled's rule: a project file may turn it off,
// never on against the global file.
func offOnly(cur, project any, globalPath string) (any, []ignored) {
	if p, c := project.(bool), cur.(bool); p && !c {
		return c, []ignored{{"planning.enabled", globalPath + " turns planning off and a project file cannot turn it on"}}
	}
	return project, nil
}

// tightenDangerous is the dangerous policy's rule: a project file may add
// denylist entries and make a class stricter (allow < prompt < deny);
// everything else it says is ignored.
func tightenDangerous(cur, project any, _ string) (any, []ignored) {
	c, p := cur.(Dangerous), project.(Dangerous)
	var drop []ignored
	const only = "a project file may only add denylist entries and make classes stricter"
	if p.Action != "" {
		drop = append(drop, ignored{"dangerous.action", only})
	}
	if p.NonInteractive != "" {
		drop = append(drop, ignored{"dangerous.non_interactive", only})
	}
	if p.Allowlist != nil {
		drop = append(drop, ignored{"dangerous.allowlist", only})
	}
	out := c
	out.Classes = make(map[string]string, len(c.Classes)+len(p.Classes))
	for k, v := range c.Classes {
		out.Classes[k] = v
	}
	for _, class := range sortedKeys(p.Classes) {
		want, have := p.Classes[class], classDecision(c, class)
		switch {
		case strictness[want] >= strictness[have]:
			// An equal decision changes nothing but is kept: the
			// project named it, so it is no longer a default that
			// --full-auto may relax (Config.DefaultedClasses).
			out.Classes[class] = want
		case strictness[want] < strictness[have]:
			drop = append(drop, ignored{"dangerous.classes." + class,
				fmt.Sprintf("%q is looser than %q; a project file may only make a class stricter", want, have)})
		}
	}
	out.Denylist = slices.Clone(c.Denylist)
	for _, d := range p.Denylist {
		if !slices.Contains(out.Denylist, d) {
			out.Denylist = append(out.Denylist, d)
		}
	}
	return out, drop
}

// classDecision is the decision for a class: the policy's, else the default.
func classDecision(d Dangerous, class string) string {
	if v, ok := d.Classes[class]; ok {
		return v
	}
	for _, rc := range RiskClasses {
		if rc.Name == class {
			return rc.Default
		}
	}
	return "deny"
}

// finish fills in the defaults, so that the tools see a complete
// policy.
func (d *Dangerous) finish() {
	if d.Action == "" {
		d.Action = "prompt"
	}
	if d.NonInteractive == "" {
		d.NonInteractive = "deny"
	}
	classes := make(map[string]string, len(RiskClasses))
	for _, rc := range RiskClasses {
		classes[rc.Name] = classDecision(*d, rc.Name)
	}
	d.Classes = classes
}

func checkDangerous(v any) error {
	d := v.(Dangerous)
	if _, ok := strictness[d.Action]; d.Action != "" && !ok {
		return fmt.Errorf("dangerous.action: unknown value %q (want allow, prompt or deny)", d.Action)
	}
	switch d.NonInteractive {
	case "", "allow", "deny", "read_only":
	case "prompt":
		return fmt.Errorf(`dangerous.non_interactive: "prompt" is not allowed: nothing can answer a prompt without a terminal (want allow, deny or read_only)`)
	default:
		return fmt.Errorf("dangerous.non_interactive: unknown value %q (want allow, deny or read_only)", d.NonInteractive)
	}
	for _, class := range sortedKeys(d.Classes) {
		if !isRiskClass(class) {
			return fmt.Errorf("dangerous.classes: unknown risk class %q (want one of %s)", class, riskClassList())
		}
		if dec := d.Classes[class]; !validDecision(dec) {
			return fmt.Errorf("dangerous.classes.%s: unknown value %q (want allow, prompt or deny)", class, dec)
		}
	}
	return nil
}

func validDecision(d string) bool {
	_, ok := strictness[d]
	return ok
}

func checkProfiles(v any) error {
	for _, name := range sortedKeys(v.(map[string]Profile)) {
		if r := v.(map[string]Profile)[name].MaxRisk; r != "" && !isRiskClass(r) {
			return fmt.Errorf("profiles.%s.max_risk: unknown risk class %q (want one of %s)", name, r, riskClassList())
		}
	}
	return nil
}

func checkContextWindows(v any) error {
	m := v.(map[string]int)
	for _, id := range sortedKeys(m) {
		if m[id] <= 0 {
			return fmt.Errorf("model_context_windows.%s must be a positive number of tokens, got %d", id, m[id])
		}
	}
	return nil
}

func isRiskClass(name string) bool {
	for _, rc := range RiskClasses {
		if rc.Name == name {
			return true
		}
	}
	return false
}

func riskClassList() string {
	names := make([]string, len(RiskClasses))
	for i, rc := range RiskClasses {
		names[i] = rc.Name
	}
	return orList(names)
}

// sortedKeys returns the keys of m in order, for deterministic warnings.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sandboxRank orders sandbox.mode by strictness (off < auto <
// workspace-write < read-only), the same order as sandbox.Rank (config
// does not import the sandbox package).
var sandboxRank = map[string]int{"off": 0, "auto": 1, "": 1, "workspace-write": 2, "read-only": 3}

// tightenSandboxMode: a project file may make the mode stricter, never
// looser; "off" is the operator's alone.
func tightenSandboxMode(cur, project any, globalPath string) (any, []ignored) {
	c, p := cur.(string), project.(string)
	if sandboxRank[p] < sandboxRank[c] {
		return c, []ignored{{"sandbox.mode", fmt.Sprintf("a project file may only make the sandbox stricter than %q (only %s or a flag can loosen it)", c, globalPath)}}
	}
	return p, nil
}

// tightenSandboxNetwork: a project file may turn the network off, never on.
func tightenSandboxNetwork(cur, project any, globalPath string) (any, []ignored) {
	if c, p := cur.(string), project.(string); p == "on" && c != "on" {
		return c, []ignored{{"sandbox.network", "a project file may turn the network off, never on (only " + globalPath + " or a flag can)"}}
	}
	return project, nil
}

// tightenRequired: a project file may require the sandbox, never waive it.
func tightenRequired(cur, project any, globalPath string) (any, []ignored) {
	if c, p := cur.(bool), project.(bool); c && !p {
		return c, []ignored{{"sandbox.required", globalPath + " requires the sandbox and a project file cannot waive it"}}
	}
	return project, nil
}
