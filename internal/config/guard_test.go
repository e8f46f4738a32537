package config

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProjectCannotReadSecretValues: issue 8 item 10. A variable whose name
// does not look secret still may not carry a secret value into a project
// file, and the warning never shows the value.
func TestProjectCannotReadSecretValues(t *testing.T) {
	const key = "sk-test-0123456789abcdef0123"
	fx := fixture{
		secrets: "VENDOR_TOKEN=file-secret-value-42\n",
		env: map[string]string{
			"ODEK_API_KEY": key,
			"ALIAS":        key,                            // the API key under an innocent name
			"LOOKS_PLAIN":  "sk-proj-abcdefghijklmnop1234", // a provider key shape
			"CONN":         "postgres://u:file-secret-value-42@db/x",
			"HEADER":       "Bearer abcdefghijklmnop",
			"WORKSPACE":    "/w",
		},
		global: `{"project_env_allow": ["ALIAS", "WORKSPACE", "LOOKS_PLAIN", "CONN", "HEADER"]}`,
		project: `{"model": "${ALIAS}", "mcp_servers": {"x": {"command": "srv",
		  "args": ["${WORKSPACE}", "$LOOKS_PLAIN", "${CONN}", "${HEADER}"]}}}`,
	}
	c, w := fx.mustLoad(t)
	if c.Model != DefaultModel {
		t.Errorf("model = %q: a secret value reached the project file", c.Model)
	}
	if diff := cmp.Diff([]string{"/w", "", "", ""}, c.MCPServers[0].Config.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	var want []string
	for _, name := range []string{"ALIAS", "CONN", "HEADER", "LOOKS_PLAIN"} {
		want = append(want, "DIR/odek.json: not expanding ${"+name+"}: its value looks like a secret, and a project file cannot read secrets")
	}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(w))); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	for _, line := range w {
		for _, secret := range []string{key, "sk-proj", "file-secret-value-42", "abcdefghijklmnop"} {
			if strings.Contains(line, secret) {
				t.Errorf("warning shows a secret: %q", line)
			}
		}
	}
	// The global file is trusted: it may read them.
	fx.global, fx.project = `{"model": "${ALIAS}"}`, ""
	if c, _ = fx.mustLoad(t); c.Model != key {
		t.Errorf("global model = %q", c.Model)
	}
}

// TestProjectServersCannotNameSecrets: issue 8 item 8.
func TestProjectServersCannotNameSecrets(t *testing.T) {
	fx := fixture{
		secrets: "PLAIN=from-secrets-file-1\n",
		env:     map[string]string{"ODEK_API_KEY": "sk-test-0123456789abcdef0123"},
		global: `{"mcp_servers": {"ops": {"url": "https://ops.example/mcp", "token_env": "OPS_TOKEN"},
		  "jobs": {"url": "https://jobs.example/mcp", "required": false, "restart_limit": 3,
		    "oauth": {"client_id": "ci", "client_secret_env": "JOBS_SECRET", "scope": "mcp:read"}}}}`,
		project: `{"mcp_servers": {"web": {"url": "https://repo.example/mcp", "token_env": "ODEK_API_KEY"},
		  "login": {"url": "https://repo.example/mcp", "oauth": {"client_id": "x", "client_secret_env": "ODEK_API_KEY"}},
		  "plain": {"url": "https://repo.example/mcp", "token_env": "HARMLESS"},
		  "env": {"command": "srv", "env": {"A": "${ODEK_API_KEY}", "B": "$PLAIN", "C": "sk-test-0123456789abcdef0123",
		    "LOG_LEVEL": "debug", "D": "$$literal"}}}}`,
	}
	c, w := fx.mustLoad(t)
	want := []string{
		`DIR/odek.json: ignoring "mcp_servers.env.env.A": its value names or holds a secret, and a project file cannot pass secrets to a server`,
		`DIR/odek.json: ignoring "mcp_servers.env.env.B": its value names or holds a secret, and a project file cannot pass secrets to a server`,
		`DIR/odek.json: ignoring "mcp_servers.env.env.C": its value names or holds a secret, and a project file cannot pass secrets to a server`,
		`DIR/odek.json: ignoring "mcp_servers.login.oauth": a project file cannot name a credential for a server (only HOME/config.json or --mcp-config can)`,
		`DIR/odek.json: ignoring "mcp_servers.plain.token_env": a project file cannot name a token variable for a server (only HOME/config.json can)`,
		`DIR/odek.json: ignoring "mcp_servers.web.token_env": a project file cannot name a token variable for a server (only HOME/config.json can)`,
	}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	byName := map[string]MCPServer{}
	for _, s := range c.MCPServers {
		byName[s.Name] = s
	}
	if byName["web"].Config.TokenEnv != "" || byName["plain"].Config.TokenEnv != "" || byName["ops"].Config.TokenEnv != "OPS_TOKEN" {
		t.Errorf("token_env: %+v", byName)
	}
	jobs := byName["jobs"].Config
	if byName["login"].Config.OAuth != nil || jobs.OAuth == nil || jobs.OAuth.ClientSecretEnv != "JOBS_SECRET" ||
		jobs.OAuth.Scope != "mcp:read" || *jobs.Required || *jobs.RestartLimit != 3 {
		t.Errorf("oauth, required, restart_limit: %+v %+v", byName["login"].Config, jobs)
	}
	if diff := cmp.Diff(map[string]string{"LOG_LEVEL": "debug", "D": "$$literal"}, byName["env"].Config.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
}

// TestGlobalSwitchesProjectServerOff: issue 8 item 11.
func TestGlobalSwitchesProjectServerOff(t *testing.T) {
	fx := fixture{
		global:  `{"mcp_servers": {"noisy": {"enabled": false}}}`,
		project: `{"mcp_servers": {"noisy": {"command": "srv"}, "kept": {"command": "srv"}}}`,
	}
	c, w := fx.mustLoad(t)
	if len(c.MCPServers) != 1 || c.MCPServers[0].Name != "kept" || len(w) != 0 {
		t.Errorf("servers %+v, warnings %q", c.MCPServers, w)
	}
	// The switch is not a server: with no project server it does nothing.
	if c, w = (fixture{global: fx.global}).mustLoad(t); len(c.MCPServers) != 0 || len(w) != 0 {
		t.Errorf("servers %+v, warnings %q", c.MCPServers, w)
	}
}

// TestUnenforceableCostCap: issue 8 item 4. A project file naming a model
// without prices used to turn the operator's cost cap into a warning.
func TestUnenforceableCostCap(t *testing.T) {
	global := `{"limits": {"max_cost_usd": 1, "model_prices": {"Qwen/Qwen2.5-7B-Instruct": {
	  "input_cost_per_million_usd": 0.2, "output_cost_per_million_usd": 0.6}}}, "model": "Qwen/Qwen2.5-7B-Instruct"}`
	c, _ := fixture{global: global}.mustLoad(t)
	if err := c.RequireEnforceableBudget(); err != nil {
		t.Errorf("priced model: %v", err)
	}
	c, _ = fixture{global: global, project: `{"model": "m-unpriced"}`}.mustLoad(t)
	err := c.RequireEnforceableBudget()
	want := `limits.max_cost_usd 1 (from HOME/config.json) cannot be enforced: model "m-unpriced" (from DIR/odek.json) is not in odek's price table, ` +
		`and the flat limits.*_cost_per_million_usd prices do not count for a model a project file chose; set limits.model_prices."m-unpriced" in HOME/config.json`
	if err == nil || scrubPaths(err.Error(), c) != want || !errors.Is(err, ErrSetup) || !errors.Is(err, ErrUnenforceableBudget) {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	// The operator's own unpriced model may be priced by the flat prices too.
	c, _ = fixture{global: `{"limits": {"max_cost_usd": 1}, "model": "m-unpriced"}`}.mustLoad(t)
	err = c.RequireEnforceableBudget()
	want = `limits.max_cost_usd 1 (from HOME/config.json) cannot be enforced: model "m-unpriced" (from HOME/config.json) has no input and output price (it is not in odek's price table); ` +
		`set limits.input_cost_per_million_usd and limits.output_cost_per_million_usd, or limits.model_prices."m-unpriced", in HOME/config.json`
	if err == nil || scrubPaths(err.Error(), c) != want || !errors.Is(err, ErrUnenforceableBudget) {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	// Model ids are case-exact: another case is another, unpriced model.
	c, _ = fixture{global: global, flags: []string{"model=qwen/qwen2.5-7b-instruct"}}.mustLoad(t)
	if err := c.RequireEnforceableBudget(); err == nil || !strings.Contains(err.Error(), "(from --model)") {
		t.Errorf("err = %v", err)
	}
	// One price is not enough; no cap needs none.
	c, _ = fixture{global: `{"model": "m-unpriced", "limits": {"max_cost_usd": 1, "input_cost_per_million_usd": 1}}`}.mustLoad(t)
	if err := c.RequireEnforceableBudget(); err == nil {
		t.Error("input price alone accepted")
	}
	// The default model and dated or routed ids of the built-in table are
	// priced with no price in the config (issue 22 item 2).
	for _, m := range []string{"", "gpt-4o-mini-2024-07-18", "openrouter/openai/gpt-4o-mini", "claude-sonnet-4-5-20250929"} {
		fx := fixture{global: `{"limits": {"max_cost_usd": 1}}`}
		if m != "" {
			fx.flags = []string{"model=" + m}
		}
		if c, _ = fx.mustLoad(t); c.RequireEnforceableBudget() != nil {
			t.Errorf("model %q: %v", m, c.RequireEnforceableBudget())
		}
	}
	if c, _ = (fixture{}).mustLoad(t); c.RequireEnforceableBudget() != nil {
		t.Error("no cap, no prices: error")
	}
	// A cap of 0 is no cap: an unpriced model runs under it.
	for _, g := range []string{`{"model": "m-unpriced"}`, `{"model": "m-unpriced", "limits": {"max_cost_usd": 0}}`} {
		if c, _ = (fixture{global: g}).mustLoad(t); c.RequireEnforceableBudget() != nil {
			t.Errorf("%s: %v", g, c.RequireEnforceableBudget())
		}
	}
}

func scrubPaths(s string, c *Config) string {
	return strings.NewReplacer(c.Home, "HOME", c.Dir, "DIR").Replace(s)
}
