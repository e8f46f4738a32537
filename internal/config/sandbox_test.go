package config

import (
	"slices"
	"strings"
	"testing"
)

// TestProjectSandboxOnlyTightens: a project file may make the sandbox
// stricter (read-only, network off, required, more protected paths) but
// never switch it off, turn the network on, waive required, or add
// writable or readable paths.
func TestProjectSandboxOnlyTightens(t *testing.T) {
	loose := `{"sandbox": {"mode": "off", "network": "on", "required": false,
	  "writable_paths": ["/"], "readable_paths": ["/root/.ssh"], "protected_paths": ["/srv/keys"]}}`
	c, w := fixture{global: `{"sandbox": {"required": true, "protected_paths": ["/opt/secret"]}}`, project: loose}.mustLoad(t)
	if c.Sandbox.Mode != "auto" || c.Sandbox.Network != "off" || !c.Sandbox.Required ||
		c.Sandbox.Writable != nil || c.Sandbox.Readable != nil {
		t.Errorf("the project loosened the sandbox: %+v", c.Sandbox)
	}
	if !slices.Equal(c.Sandbox.Protected, []string{"/opt/secret", "/srv/keys"}) {
		t.Errorf("protected_paths = %v, want both layers'", c.Sandbox.Protected)
	}
	for _, k := range []string{"sandbox.mode", "sandbox.network", "sandbox.required", "sandbox.writable_paths", "sandbox.readable_paths"} {
		if !slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, `ignoring "`+k+`"`) }) {
			t.Errorf("no warning for %s in %q", k, w)
		}
	}
	c, _ = fixture{project: `{"sandbox": {"mode": "read-only", "required": true}}`}.mustLoad(t)
	if c.Sandbox.Mode != "read-only" || !c.Sandbox.Required {
		t.Errorf("the project could not tighten: %+v", c.Sandbox)
	}
	c, _ = fixture{global: `{"sandbox": {"mode": "read-only"}}`, project: `{"sandbox": {"mode": "workspace-write"}}`}.mustLoad(t)
	if c.Sandbox.Mode != "read-only" {
		t.Errorf("mode = %s: the project loosened read-only", c.Sandbox.Mode)
	}
}

func TestSandboxSettingValues(t *testing.T) {
	for _, bad := range []string{`{"sandbox": {"mode": "sideways"}}`, `{"sandbox": {"network": "maybe"}}`,
		`{"mcp_servers": {"s": {"command": "x", "sandbox": "loose"}}}`} {
		if _, _, err := (fixture{global: bad}).load(t); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestProjectServerCannotLeaveSandbox(t *testing.T) {
	c, w := fixture{project: `{"mcp_servers": {"s": {"command": "x", "sandbox": "off"}}}`}.mustLoad(t)
	if len(c.MCPServers) != 1 || c.MCPServers[0].Config.Sandbox != "" {
		t.Fatalf("servers: %+v", c.MCPServers)
	}
	if !slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, `ignoring "mcp_servers.s.sandbox"`) }) {
		t.Errorf("no warning in %q", w)
	}
}
