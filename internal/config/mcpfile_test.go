package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/mcpclient"
)

func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func loadWithMCPFiles(t *testing.T, global, project string, files ...string) (*Config, []string, error) {
	t.Helper()
	home, dir := t.TempDir(), t.TempDir()
	if global != "" {
		os.WriteFile(filepath.Join(home, "config.json"), []byte(global), 0o600)
	}
	if project != "" {
		os.WriteFile(filepath.Join(dir, "odek.json"), []byte(project), 0o600)
	}
	var o Overrides
	for _, f := range files {
		o.AddMCPConfig(f)
	}
	return Load(LoadOptions{Home: home, Dir: dir, Flags: o})
}

func TestMCPConfigFiles(t *testing.T) {
	a := writeTemp(t, "a.json", `{"mcp_servers":{"fs":{"command":"fs-a","auto_approve":true},"ci":{"command":"ci-srv","elicitation":{"confirm":true}}}}`)
	b := writeTemp(t, "b.json", `{"mcp_servers":{"fs":{"command":"fs-b"}}}`)
	global := `{"mcp_servers":{"fs":{"command":"fs-global"},"keep":{"command":"k"}}}`
	project := `{"mcp_servers":{"ci":{"command":"repo-ci"}}}`
	c, w, err := loadWithMCPFiles(t, global, project, a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []MCPServer{
		{Name: "ci", Config: mcpclient.ServerConfig{Command: "ci-srv", Elicitation: map[string]json.RawMessage{"confirm": json.RawMessage("true")}}},
		{Name: "fs", Config: mcpclient.ServerConfig{Command: "fs-b"}}, // the later file wins, whole
		{Name: "keep", Config: mcpclient.ServerConfig{Command: "k"}},
	}
	if diff := cmp.Diff(want, c.MCPServers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if len(w) != 1 || !strings.Contains(w[0], `ignoring "mcp_servers.ci"`) {
		t.Errorf("warnings %q: want the project's ci to be refused (an operator server has that name)", w)
	}
	if !strings.Contains(strings.Join(c.Files, " "), a) {
		t.Errorf("Files %v lacks %s", c.Files, a)
	}
}

func TestMCPConfigFileErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"other setting", `{"model":"x","mcp_servers":{}}`, `sets "model"; a --mcp-config file holds only mcp_servers`},
		{"bad json", `{"mcp_servers":`, `b.json`},
		{"no command", `{"mcp_servers":{"a":{"args":["x"]}}}`, "mcpclient a: server config must set either url or command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadWithMCPFiles(t, "", "", writeTemp(t, "b.json", tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrSetup) {
				t.Errorf("err = %v, want a setup error containing %q", err, tt.want)
			}
		})
	}
	_, _, err := loadWithMCPFiles(t, "", "", filepath.Join(t.TempDir(), "missing.json"))
	if err == nil || !strings.HasSuffix(err.Error(), "missing.json: no such file") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestProjectCannotAnswerElicitation(t *testing.T) {
	c, w, err := loadWithMCPFiles(t, "", `{"mcp_servers":{"p":{"command":"p","elicitation":{"confirm":true}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.MCPServers) != 1 || c.MCPServers[0].Config.Elicitation != nil {
		t.Errorf("servers %+v: a project file's elicitation answers must be dropped", c.MCPServers)
	}
	if len(w) != 1 || !strings.Contains(w[0], `ignoring "mcp_servers.p.elicitation"`) {
		t.Errorf("warnings %q", w)
	}
}
