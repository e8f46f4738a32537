package config

import (
	"fmt"
	"sort"

	"github.com/odek-run/odek/internal/mcpclient"
)

// MCPServer is one enabled MCP server after the trust rules.
type MCPServer struct {
	// Name is the key under mcp_servers, exactly as written.
	Name string
	// Config is the server definition. Config.AutoApprove and
	// Config.TrustAnnotations are true only for an operator server (the
	// global file or --mcp-config) that sets them: a project file's are
	// stripped, and a command-less entry carrying them marks nothing.
	Config mcpclient.ServerConfig
	// Project is true for a server defined in the project file: spawning it
	// needs the operator's approval.
	Project bool
	// Dir is the project directory for a project server, "" otherwise.
	Dir string
}

// validServerName enforces 1–64 characters of [A-Za-z0-9_-] without "__",
// which is the separator of registered tool names.
func validServerName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok || (c == '_' && i > 0 && name[i-1] == '_') {
			return false
		}
	}
	return true
}

// isOffSwitch reports a global entry that only says {"enabled": false}.
func isOffSwitch(s mcpclient.ServerConfig) bool {
	return s.Command == "" && s.URL == "" && s.Enabled != nil && !*s.Enabled
}

// stripProjectSecrets keeps a project server from naming a secret (issue 8
// item 8): its token_env and oauth are always dropped, because the
// credential they name would go to the repository's server, and so is any env entry whose value
// references a secret variable or holds a secret value.
func stripProjectSecrets(s *mcpclient.ServerConfig, name, path, globalPath string, guard *secretGuard) []string {
	var w []string
	if s.TokenEnv != "" {
		w = append(w, fmt.Sprintf("%s: ignoring %q: a project file cannot name a token variable for a server (only %s can)",
			path, "mcp_servers."+name+".token_env", globalPath))
		s.TokenEnv = ""
	}
	if s.OAuth != nil {
		w = append(w, fmt.Sprintf("%s: ignoring %q: a project file cannot name a credential for a server (only %s or --mcp-config can)",
			path, "mcp_servers."+name+".oauth", globalPath))
		s.OAuth = nil
	}
	for _, k := range sortedKeys(s.Env) {
		if v := s.Env[k]; guard.namesSecret(v) || guard.secretValue(v) {
			w = append(w, fmt.Sprintf("%s: ignoring %q: its value names or holds a secret, and a project file cannot pass secrets to a server",
				path, "mcp_servers."+name+".env."+k))
			delete(s.Env, k)
		}
	}
	return w
}

// isTrustMarker reports a global entry without command or url that only
// carries trust: auto_approve or trust_annotations.
func isTrustMarker(s mcpclient.ServerConfig) bool {
	return s.Command == "" && s.URL == "" && (s.AutoApprove || s.TrustAnnotations)
}

// markerWarning says why a command-less trust entry is ignored (DECISION 2):
// trust goes only to a definition the operator wrote in full.
func markerWarning(globalPath, name string, s mcpclient.ServerConfig) string {
	what := "an auto_approve entry without command or url approves nothing"
	if !s.AutoApprove {
		what = "a trust_annotations entry without command or url trusts nothing"
	}
	return fmt.Sprintf("%s: ignoring %q: %s; define the server there in full to trust it", globalPath, "mcp_servers."+name, what)
}

// validateServer checks what the config layer owns; clamping and ceilings
// are mcpclient.New's job.
func validateServer(path, name string, s mcpclient.ServerConfig) error {
	if !validServerName(name) {
		return setupErrorf("%s: invalid MCP server name %q: want 1-64 characters from [A-Za-z0-9_-] without \"__\"", path, name)
	}
	switch {
	case s.Command == "" && s.URL == "":
		return setupErrorf("mcpclient %s: server config must set either url or command", name)
	case s.Command != "" && s.URL != "":
		return setupErrorf("mcpclient %s: server config must set either url or command, not both", name)
	case s.Sandbox != "" && s.Sandbox != "workspace-write" && s.Sandbox != "read-only" && s.Sandbox != "off":
		return setupErrorf("%s: mcp_servers.%s.sandbox: unknown value %q (want workspace-write, read-only or off)", path, name, s.Sandbox)
	}
	if err := firstError(
		nonNegative("timeout_seconds", &s.TimeoutSeconds),
		nonNegative("idle_timeout_seconds", &s.IdleTimeoutSeconds),
		nonNegative("max_response_bytes", &s.MaxResponseBytes),
		nonNegative("max_result_chars", &s.MaxResultChars),
		nonNegative("restart_limit", s.RestartLimit),
	); err != nil {
		return setupErrorf("mcpclient %s: %v", name, err)
	}
	return nil
}

func enabled(s mcpclient.ServerConfig) bool { return s.Enabled == nil || *s.Enabled }

// servers returns a file layer's mcp_servers; nil for a missing layer.
func (l *layer) servers() map[string]mcpclient.ServerConfig {
	if l == nil {
		return nil
	}
	m, _ := l.vals[keyIndex()["mcp_servers"]].(map[string]mcpclient.ServerConfig)
	return m
}

// mergeServers combines the global and the project servers. A project
// server never carries auto_approve and never replaces a global server.
func mergeServers(global, project *layer, extra map[string]fileServer, globalPath, dir string, guard *secretGuard) ([]MCPServer, []string, error) {
	var out []MCPServer
	var warns []string
	markers, off := map[string]mcpclient.ServerConfig{}, map[string]bool{}
	gs := map[string]mcpclient.ServerConfig{}
	from := map[string]string{} // the file that defines each operator server
	for name, s := range global.servers() {
		gs[name], from[name] = s, global.path
	}
	for name, s := range extra { // --mcp-config: operator-trusted, beats the global file
		gs[name], from[name] = s.config, s.path
	}
	for _, name := range sortedKeys(gs) {
		s := gs[name]
		if validServerName(name) && isOffSwitch(s) {
			off[name] = true // switches a project server of that name off
			continue
		}
		if validServerName(name) && isTrustMarker(s) {
			markers[name] = s
			continue
		}
		if err := validateServer(from[name], name, s); err != nil {
			return nil, nil, err
		}
		if enabled(s) {
			out = append(out, MCPServer{Name: name, Config: s})
		}
	}
	ps := project.servers()
	for _, name := range sortedKeys(ps) {
		s := ps[name]
		if err := validateServer(project.path, name, s); err != nil {
			return nil, nil, err
		}
		if s.AutoApprove {
			warns = append(warns, fmt.Sprintf("%s: ignoring %q: a project file cannot approve its own MCP servers (only %s can)",
				project.path, "mcp_servers."+name+".auto_approve", globalPath))
			s.AutoApprove = false
		}
		if s.TrustAnnotations {
			warns = append(warns, fmt.Sprintf("%s: ignoring %q: a project file cannot make odek believe its servers' hints (only %s or --mcp-config can)",
				project.path, "mcp_servers."+name+".trust_annotations", globalPath))
			s.TrustAnnotations = false
		}
		if s.Sandbox == "off" {
			warns = append(warns, fmt.Sprintf("%s: ignoring %q: a project file cannot run its servers outside the sandbox (only %s can)",
				project.path, "mcp_servers."+name+".sandbox", globalPath))
			s.Sandbox = ""
		}
		if len(s.Elicitation) > 0 {
			warns = append(warns, fmt.Sprintf("%s: ignoring %q: a project file cannot answer a server's questions for the operator (only %s or --mcp-config can)",
				project.path, "mcp_servers."+name+".elicitation", globalPath))
			s.Elicitation = nil
		}
		warns = append(warns, stripProjectSecrets(&s, name, project.path, globalPath, guard)...)
		if off[name] {
			continue
		}
		if g, ok := gs[name]; ok && !isTrustMarker(g) {
			warns = append(warns, fmt.Sprintf("%s: ignoring %q: %s defines a server of that name, and a project file cannot replace it",
				project.path, "mcp_servers."+name, globalPath))
			continue
		}
		if enabled(s) {
			out = append(out, MCPServer{Name: name, Config: s, Project: true, Dir: dir})
		}
	}
	// DECISION 2: a command-less auto_approve entry is not a wildcard. Trust
	// is only ever given to a definition the operator wrote in full, so that a
	// repository cannot change the command behind an approved name.
	for _, name := range sortedKeys(markers) {
		warns = append(warns, markerWarning(globalPath, name, markers[name]))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, warns, nil
}
