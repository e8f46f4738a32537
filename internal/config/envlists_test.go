package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShellEnvPassthrough(t *testing.T) {
	for _, tt := range []struct {
		name            string
		global, project string
		env             map[string]string
		flags           []string
		want            []string
		warns           []string
	}{
		{"absent", `{}`, `{}`, nil, nil, nil, nil},
		{"global", `{"shell":{"env_passthrough":["GH_HOST","MYAPP_*"]}}`, `{}`, nil, nil, []string{"GH_HOST", "MYAPP_*"}, nil},
		{"project narrows", `{"shell":{"env_passthrough":["GH_HOST","MYAPP_*"]}}`,
			`{"shell":{"env_passthrough":["MYAPP_*","MYAPP_X","GITHUB_TOKEN","OTHER_*"]}}`, nil, nil,
			[]string{"MYAPP_*", "MYAPP_X"}, []string{
				`DIR/odek.json: ignoring "shell.env_passthrough": "GITHUB_TOKEN" is not in the operator's list; a project file may only narrow it`,
				`DIR/odek.json: ignoring "shell.env_passthrough": "OTHER_*" is not in the operator's list; a project file may only narrow it`,
			}},
		{"project cannot add to nothing", `{}`, `{"shell":{"env_passthrough":["AWS_PROFILE"]}}`, nil, nil, []string{}, []string{
			`DIR/odek.json: ignoring "shell.env_passthrough": "AWS_PROFILE" is not in the operator's list; a project file may only narrow it`,
		}},
		{"project empties", `{"shell":{"env_passthrough":["A"]}}`, `{"shell":{"env_passthrough":[]}}`, nil, nil, []string{}, nil},
		{"env beats files", `{"shell":{"env_passthrough":["A"]}}`, `{}`, map[string]string{"ODEK_SHELL_ENV_PASSTHROUGH": "B, C_*"}, nil, []string{"B", "C_*"}, nil},
		{"-c beats env", `{}`, `{}`, map[string]string{"ODEK_SHELL_ENV_PASSTHROUGH": "B"}, []string{"shell.env_passthrough=D"}, []string{"D"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, w := fixture{global: tt.global, project: tt.project, env: tt.env, flags: tt.flags}.mustLoad(t)
			if diff := cmp.Diff(tt.want, c.ShellEnvPassthrough); diff != "" {
				t.Errorf("passthrough (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warns, withoutUnsupported(w)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnvListsRefuseBadNames(t *testing.T) {
	for _, fx := range []fixture{
		{global: `{"shell":{"env_passthrough":["*"]}}`},
		{global: `{"shell":{"env_passthrough":["A-B"]}}`},
		{global: `{"shell":{"env_passthrough":["A*B"]}}`},
		{global: `{"shell":{"env_passthrough":[""]}}`},
		{env: map[string]string{"ODEK_SHELL_ENV_PASSTHROUGH": "PATH,*"}},
		{flags: []string{"shell.env_passthrough=9X"}},
		{global: `{"project_env_allow":["WS_*"]}`},
		{global: `{"project_env_allow":["A B"]}`},
		{env: map[string]string{"ODEK_PROJECT_ENV_ALLOW": "OK,$BAD"}},
	} {
		_, _, err := fx.load(t)
		if err == nil || !strings.Contains(err.Error(), "not ") {
			t.Errorf("%+v: err = %v, want a setup error naming the entry", fx, err)
		}
	}
}

// Issue 18.6: a project file expands only what project_env_allow lists;
// everything else becomes "" with a warning naming the variable and never
// its value.
func TestProjectEnvAllow(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef01234567" // 40 hex, no secret shape
	env := map[string]string{"WS": "/w", "GIT_SHA": token, "CI_DEPLOY_KEY_ID": token, "GOOGLE_MAPS": "AIza" + strings.Repeat("b7", 18)[:35]}
	project := `{"model":"m-${WS}","mcp_servers":{"x":{"command":"srv","args":["${WS}","${GIT_SHA}","${CI_DEPLOY_KEY_ID}","${GOOGLE_MAPS}","$$HOME"]}}}`
	for _, tt := range []struct {
		name   string
		fx     fixture
		args   []string
		model  string
		refuse []string // variables warned about
	}{
		{"nothing listed", fixture{project: project}, []string{"", "", "", "", "$HOME"}, "m-", []string{"CI_DEPLOY_KEY_ID", "GIT_SHA", "GOOGLE_MAPS", "WS"}},
		{"global lists", fixture{global: `{"project_env_allow":["WS","GIT_SHA","GOOGLE_MAPS"]}`, project: project},
			[]string{"/w", token, "", "", "$HOME"}, "m-/w", []string{"CI_DEPLOY_KEY_ID", "GOOGLE_MAPS"}},
		{"env lists", fixture{env: map[string]string{"ODEK_PROJECT_ENV_ALLOW": "WS"}, project: project},
			[]string{"/w", "", "", "", "$HOME"}, "m-/w", []string{"CI_DEPLOY_KEY_ID", "GIT_SHA", "GOOGLE_MAPS"}},
		{"-c beats global", fixture{global: `{"project_env_allow":["WS"]}`, flags: []string{"project_env_allow=GIT_SHA"}, project: project},
			[]string{"", token, "", "", "$HOME"}, "m-", []string{"CI_DEPLOY_KEY_ID", "GOOGLE_MAPS", "WS"}},
		{"project cannot list", fixture{project: `{"project_env_allow":["WS"],` + project[1:]},
			[]string{"", "", "", "", "$HOME"}, "m-", []string{"CI_DEPLOY_KEY_ID", "GIT_SHA", "GOOGLE_MAPS", "WS"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := tt.fx
			if fx.env == nil {
				fx.env = map[string]string{}
			}
			for k, v := range env {
				fx.env[k] = v
			}
			c, w := fx.mustLoad(t)
			if diff := cmp.Diff(tt.args, c.MCPServers[0].Config.Args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if c.Model != tt.model {
				t.Errorf("model %q, want %q", c.Model, tt.model)
			}
			var refused []string
			for _, line := range withoutUnsupported(w) {
				for _, v := range env {
					if strings.Contains(line, v) {
						t.Errorf("a warning shows a value: %q", line)
					}
				}
				if _, rest, ok := strings.Cut(line, "not expanding ${"); ok {
					refused = append(refused, rest[:strings.IndexByte(rest, '}')])
				}
			}
			if diff := cmp.Diff(tt.refuse, sortedUnique(refused)); diff != "" {
				t.Errorf("refused (-want +got):\n%s\nwarnings: %q", diff, w)
			}
		})
	}
}

func sortedUnique(s []string) []string {
	m := map[string]bool{}
	for _, v := range s {
		m[v] = true
	}
	return sortedKeys(m)
}
