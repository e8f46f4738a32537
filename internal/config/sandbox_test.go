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

// TestProjectSandboxRepeatingOperator: a project file that repeats the
// operator's sandbox setting, or tightens it by one step, loosens nothing,
// so it is taken with no "ignoring" warning; one step looser is ignored.
// The equal case is the boundary of each rule: treating it as loosening
// would only warn, but a warning that blames a harmless file teaches
// operators to skim past the ones that matter.
func TestProjectSandboxRepeatingOperator(t *testing.T) {
	cases := []struct {
		global, project string
		mode, network   string
		required, warns bool
	}{
		{``, `{"sandbox": {"mode": "auto", "network": "off", "required": false}}`, "auto", "off", false, false},
		{`{"sandbox": {"mode": "read-only", "network": "on", "required": true}}`,
			`{"sandbox": {"mode": "read-only", "network": "on", "required": true}}`, "read-only", "on", true, false},
		{`{"sandbox": {"mode": "workspace-write"}}`, `{"sandbox": {"mode": "workspace-write"}}`, "workspace-write", "off", false, false},
		{`{"sandbox": {"mode": "off"}}`, `{"sandbox": {"mode": "off"}}`, "off", "off", false, false},
		{`{"sandbox": {"mode": "off"}}`, `{"sandbox": {"mode": "auto"}}`, "auto", "off", false, false},
		{``, `{"sandbox": {"mode": "workspace-write"}}`, "workspace-write", "off", false, false},
		{`{"sandbox": {"network": "on"}}`, `{"sandbox": {"network": "off"}}`, "auto", "off", false, false},
		{`{"sandbox": {"mode": "workspace-write"}}`, `{"sandbox": {"mode": "auto"}}`, "workspace-write", "off", false, true},
		{``, `{"sandbox": {"mode": "off"}}`, "auto", "off", false, true},
	}
	for _, tc := range cases {
		c, w := fixture{global: tc.global, project: tc.project}.mustLoad(t)
		s := c.Sandbox
		if s.Mode != tc.mode || s.Network != tc.network || s.Required != tc.required {
			t.Errorf("%s over %s: mode %q network %q required %v, want %q %q %v",
				tc.project, tc.global, s.Mode, s.Network, s.Required, tc.mode, tc.network, tc.required)
		}
		warned := slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, `ignoring "sandbox.`) })
		if warned != tc.warns {
			t.Errorf("%s over %s: warnings %q, want a sandbox warning %v", tc.project, tc.global, w, tc.warns)
		}
	}
}
