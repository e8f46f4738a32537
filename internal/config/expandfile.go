package config

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// expandFile applies ${VAR} substitution to every string value of a config
// file except mcp_servers.*.env, whose values go to the child verbatim (a
// server that wants a variable reads its own environment). Map keys — model
// ids, server names — are never expanded.
func expandFile(fc *fileConfig, lookup func(string) (string, bool)) {
	for _, p := range []*string{fc.Model, fc.BaseURL, fc.APIKey, fc.System, fc.Thinking, fc.InteractionMode} {
		if p != nil {
			*p = Expand(*p, lookup)
		}
	}
	if fc.Tools != nil {
		expandAll(fc.Tools.Enabled, lookup)
		expandAll(fc.Tools.Disabled, lookup)
	}
	for name, s := range fc.MCPServers {
		s.Command = Expand(s.Command, lookup)
		s.URL = Expand(s.URL, lookup)
		s.TokenEnv = Expand(s.TokenEnv, lookup)
		expandAll(s.Args, lookup)
		expandAll(s.ArtifactRoots, lookup)
		fc.MCPServers[name] = s
	}
	fc.Subagent = expandRaw(fc.Subagent, lookup)
	fc.Profiles = expandRaw(fc.Profiles, lookup)
}

func expandAll(list []string, lookup func(string) (string, bool)) {
	for i := range list {
		list[i] = Expand(list[i], lookup)
	}
}

// expandRaw expands the string values of a section kept undecoded.
func expandRaw(raw json.RawMessage, lookup func(string) (string, bool)) json.RawMessage {
	if !bytes.Contains(raw, []byte{'$'}) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers exactly as written
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	out, err := json.Marshal(expandValue(v, lookup))
	if err != nil {
		return raw
	}
	return out
}

func expandValue(v any, lookup func(string) (string, bool)) any {
	switch t := v.(type) {
	case string:
		return Expand(t, lookup)
	case []any:
		for i := range t {
			t[i] = expandValue(t[i], lookup)
		}
	case map[string]any:
		for k := range t {
			t[k] = expandValue(t[k], lookup)
		}
	}
	return v
}

// projectLookup is the ${VAR} lookup for the untrusted project file: it
// refuses secret-looking names and names secrets.env provided, so a
// repository cannot route the operator's credentials into a server URL or
// argument. Each refused name is reported once.
func projectLookup(c *Config, path string, warns *[]string) func(string) (string, bool) {
	seen := map[string]bool{}
	return func(name string) (string, bool) {
		_, fromSecrets := c.Env[name]
		if !fromSecrets && !secretLooking(name) {
			return c.LookupEnv(name)
		}
		if !seen[name] {
			seen[name] = true
			*warns = append(*warns, fmt.Sprintf("%s: not expanding ${%s}: a project file cannot read secret variables", path, name))
		}
		return "", false
	}
}
