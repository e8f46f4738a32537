package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/mcpclient"
)

func TestMCPServers(t *testing.T) {
	global := `{"project_env_allow":["WS"],"mcp_servers":{
	  "ops":    {"command":"ops-srv","auto_approve":true},
	  "marker": {"auto_approve":true},
	  "orphan": {"auto_approve":true},
	  "off":    {"command":"x","enabled":false},
	  "shared": {"command":"operator-cmd"},
	  "web":    {"url":"https://mcp.example/x","token_env":"TOK"}
	}}`
	project := `{"mcp_servers":{
	  "marker": {"command":"repo-srv","args":["${WS}"],"env":{"P":"${WS}"}},
	  "shared": {"command":"repo-replacement"},
	  "self":   {"command":"self-srv","auto_approve":true},
	  "poff":   {"command":"y","enabled":false}
	}}`
	c, w, err := fixture{global: global, project: project, env: map[string]string{"WS": "/ws"}}.load(t)
	if err != nil {
		t.Fatal(err)
	}
	dir := c.Dir
	want := []MCPServer{
		{Name: "marker", Config: mcpclient.ServerConfig{Command: "repo-srv", Args: []string{"/ws"}, Env: map[string]string{"P": "${WS}"}}, Project: true, Dir: dir},
		{Name: "ops", Config: mcpclient.ServerConfig{Command: "ops-srv", AutoApprove: true}},
		{Name: "self", Config: mcpclient.ServerConfig{Command: "self-srv"}, Project: true, Dir: dir},
		{Name: "shared", Config: mcpclient.ServerConfig{Command: "operator-cmd"}},
		{Name: "web", Config: mcpclient.ServerConfig{URL: "https://mcp.example/x", TokenEnv: "TOK"}},
	}
	if diff := cmp.Diff(want, c.MCPServers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	wantW := []string{
		`DIR/odek.json: ignoring "mcp_servers.self.auto_approve": a project file cannot approve its own MCP servers (only HOME/config.json can)`,
		`DIR/odek.json: ignoring "mcp_servers.shared": HOME/config.json defines a server of that name, and a project file cannot replace it`,
		`HOME/config.json: ignoring "mcp_servers.marker": an auto_approve entry without command or url approves nothing; define the server there in full to trust it`,
		`HOME/config.json: ignoring "mcp_servers.orphan": an auto_approve entry without command or url approves nothing; define the server there in full to trust it`,
	}
	if diff := cmp.Diff(wantW, w); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestMCPServerErrors(t *testing.T) {
	tests := []struct {
		name, global, project, want string
	}{
		{"no command", `{"mcp_servers":{"a":{"args":["x"]}}}`, "", "mcpclient a: server config must set either url or command"},
		{"project marker", "", `{"mcp_servers":{"a":{"auto_approve":true}}}`, "mcpclient a: server config must set either url or command"},
		{"both", `{"mcp_servers":{"a":{"command":"c","url":"https://x"}}}`, "", "mcpclient a: server config must set either url or command, not both"},
		{"bad name", `{"mcp_servers":{"a__b":{"command":"c"}}}`, "", `HOME/config.json: invalid MCP server name "a__b": want 1-64 characters from [A-Za-z0-9_-] without "__"`},
		{"bad marker name", `{"mcp_servers":{"a.b":{"auto_approve":true}}}`, "", `HOME/config.json: invalid MCP server name "a.b": want 1-64 characters from [A-Za-z0-9_-] without "__"`},
		{"bad project name", "", `{"mcp_servers":{"":{"command":"c"}}}`, `DIR/odek.json: invalid MCP server name "": want 1-64 characters from [A-Za-z0-9_-] without "__"`},
		{"negative timeout", `{"mcp_servers":{"a":{"command":"c","timeout_seconds":-1}}}`, "", "mcpclient a: timeout_seconds must be a non-negative number, got -1"},
		{"negative bytes", "", `{"mcp_servers":{"a":{"command":"c","max_response_bytes":-5}}}`, "mcpclient a: max_response_bytes must be a non-negative number, got -5"},
		{"negative chars", "", `{"mcp_servers":{"a":{"command":"c","max_result_chars":-5}}}`, "mcpclient a: max_result_chars must be a non-negative number, got -5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := fixture{global: tt.global, project: tt.project}.load(t)
			if err == nil || !errors.Is(err, ErrSetup) {
				t.Fatalf("err = %v, want a setup error", err)
			}
			if got := scrubErr(t, err); got != tt.want {
				t.Errorf("err = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestServerName(t *testing.T) {
	long := "a123456789b123456789c123456789d123456789e123456789f123456789abcd"
	for name, ok := range map[string]bool{"a": true, "my-server_2": true, long: true, long + "x": false,
		"": false, "a__b": false, "_a": true, "a_": true, "__": false, "a b": false, "é": false} {
		if validServerName(name) != ok {
			t.Errorf("validServerName(%q) = %v", name, !ok)
		}
	}
}

// trust_annotations is the operator's: a project file's is stripped with a
// warning, a --mcp-config file's holds, and a command-less global entry
// carrying it trusts nothing (DECISION 2). idle_timeout_seconds is read;
// the retired max_call_seconds still loads (the client warns about it).
func TestMCPTrustAnnotations(t *testing.T) {
	ci := writeTemp(t, "ci.json", `{"mcp_servers":{"ci":{"command":"ci-srv","trust_annotations":true}}}`)
	global := `{"mcp_servers":{
	  "ops":  {"command":"ops-srv","trust_annotations":true,"idle_timeout_seconds":20,"max_call_seconds":600},
	  "hint": {"trust_annotations":true}
	}}`
	project := `{"mcp_servers":{
	  "repo": {"command":"repo-srv","trust_annotations":true},
	  "hint": {"command":"repo-hint"}
	}}`
	c, w, err := loadWithMCPFiles(t, global, project, ci)
	if err != nil {
		t.Fatal(err)
	}
	dir := c.Dir
	want := []MCPServer{
		{Name: "ci", Config: mcpclient.ServerConfig{Command: "ci-srv", TrustAnnotations: true}},
		{Name: "hint", Config: mcpclient.ServerConfig{Command: "repo-hint"}, Project: true, Dir: dir},
		{Name: "ops", Config: mcpclient.ServerConfig{Command: "ops-srv", TrustAnnotations: true, IdleTimeoutSeconds: 20, MaxCallSeconds: 600}},
		{Name: "repo", Config: mcpclient.ServerConfig{Command: "repo-srv"}, Project: true, Dir: dir},
	}
	if diff := cmp.Diff(want, c.MCPServers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	joined := strings.Join(w, "\n")
	for _, s := range []string{
		`odek.json: ignoring "mcp_servers.repo.trust_annotations": a project file cannot make odek believe its servers' hints (only `,
		`config.json: ignoring "mcp_servers.hint": a trust_annotations entry without command or url trusts nothing; define the server there in full to trust it`,
	} {
		if !strings.Contains(joined, s) {
			t.Errorf("warnings lack %q:\n%s", s, joined)
		}
	}
	if strings.Contains(joined, "unknown key") {
		t.Errorf("a known key was warned about:\n%s", joined)
	}
	_, _, err = fixture{global: `{"mcp_servers":{"a":{"command":"c","idle_timeout_seconds":-1}}}`}.load(t)
	if err == nil || !strings.Contains(err.Error(), "mcpclient a: idle_timeout_seconds must be a non-negative number, got -1") {
		t.Errorf("negative idle timeout: %v", err)
	}
}

// TestMCPCommandHome: "~/" in a server's command is the home directory,
// as in sandbox.writable_paths, for the operator's servers and the
// project's; "~user" and a bare name are left alone; without HOME it is
// a setup error naming the server.
func TestMCPCommandHome(t *testing.T) {
	t.Parallel()
	global := `{"mcp_servers":{"a":{"command":"~/bin/srv","args":["~/x"]},"b":{"command":"~other/srv"},"c":{"command":"srv"}}}`
	project := `{"mcp_servers":{"p":{"command":"~/.local/bin/p"}}}`
	c, _, err := fixture{global: global, project: project, env: map[string]string{"HOME": "/home/op"}}.load(t)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range c.MCPServers {
		got[s.Name] = s.Config.Command + " " + strings.Join(s.Config.Args, " ")
	}
	want := map[string]string{"a": "/home/op/bin/srv ~/x", "b": "~other/srv ", "c": "srv ", "p": "/home/op/.local/bin/p "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	_, _, err = fixture{global: global}.load(t)
	if !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), `mcp_servers.a.command "~/bin/srv": HOME is not set`) {
		t.Errorf("without HOME: %v", err)
	}
}
