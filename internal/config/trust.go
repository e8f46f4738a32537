package config

import (
	"fmt"
	"sort"
)

// projectForbidden are the top-level keys only the operator's global file
// may set (BEHAVIOR 2.4), in the order their warnings are reported.
var projectForbidden = []string{
	"base_url", "api_key", "system", "dangerous", "embedding", "memory", "sessions",
	"skills", "web_search", "telegram", "guard", "trusted_proxies", "maintenance",
	"subagent", "profiles",
}

// applyProjectTrust removes from the project file everything a repository
// may not decide for the operator, returning one warning per removal. Limits
// and planning are clamped later, against the global values.
func applyProjectTrust(p *loadedFile, globalPath string) []string {
	var w []string
	deny := func(key string) {
		w = append(w, fmt.Sprintf("%s: ignoring %q: a project file cannot set it (only %s can)", p.path, key, globalPath))
	}
	for _, k := range projectForbidden {
		if _, ok := p.top[k]; ok {
			deny(k)
		}
	}
	c := &p.cfg
	c.BaseURL, c.APIKey, c.System, c.Maintenance, c.Subagent, c.Profiles = nil, nil, nil, nil, nil, nil
	if c.Tools != nil && c.Tools.Enabled != nil {
		deny("tools.enabled")
		c.Tools.Enabled = nil
	}
	w = append(w, stripProjectPrices(p, globalPath)...)
	for _, name := range sortedKeys(c.MCPServers) {
		s := c.MCPServers[name]
		if s.AutoApprove {
			w = append(w, fmt.Sprintf("%s: ignoring %q: a project file cannot approve its own MCP servers (only %s can)",
				p.path, "mcp_servers."+name+".auto_approve", globalPath))
			s.AutoApprove = false
			c.MCPServers[name] = s
		}
	}
	return w
}

// stripProjectPrices rejects every project price, even where the global file
// sets none: prices decide whether a cost cap can fire at all.
func stripProjectPrices(p *loadedFile, globalPath string) []string {
	l := p.cfg.Limits
	if l == nil {
		return nil
	}
	var w []string
	reject := func(key string) {
		w = append(w, fmt.Sprintf("%s: ignoring %q: a project file cannot set prices (only %s can)", p.path, key, globalPath))
	}
	if l.InputCost != nil {
		reject("limits.input_cost_per_million_usd")
	}
	if l.OutputCost != nil {
		reject("limits.output_cost_per_million_usd")
	}
	if l.ModelPrices != nil {
		reject("limits.model_prices")
	}
	l.InputCost, l.OutputCost, l.ModelPrices = nil, nil, nil
	return w
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
