package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDefaults(t *testing.T) {
	c, w := fixture{}.mustLoad(t)
	if len(w) != 0 {
		t.Errorf("warnings = %q", w)
	}
	want := struct {
		Model, BaseURL, Mode      string
		Stream, Compaction, Color bool
		Iter, Par, Conc, Age      int
	}{DefaultModel, DefaultBaseURL, "engaging", true, true, true, 90, 4, 3, 24}
	got := struct {
		Model, BaseURL, Mode      string
		Stream, Compaction, Color bool
		Iter, Par, Conc, Age      int
	}{c.Model, c.BaseURL, c.InteractionMode, c.Stream, c.Compaction, !c.NoColor,
		c.MaxIterations, c.MaxToolParallel, c.MaxConcurrency, c.ArtifactsMaxAgeHours}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if len(c.Files) != 0 || c.APIKey != "" || c.Planning != (Planning{true, 12, 2000}) {
		t.Errorf("files %q key %q planning %+v", c.Files, c.APIKey, c.Planning)
	}
}

// TestLayerPriority checks that each layer beats the one below it.
func TestLayerPriority(t *testing.T) {
	g := `{"model":"g","max_iterations":10,"max_tool_parallel":2,"stream":false,"no_color":false,"interaction_mode":"verbose"}`
	p := `{"model":"p","max_iterations":5,"max_tool_parallel":1,"stream":true,"no_color":true,"interaction_mode":"off"}`
	env := map[string]string{"ODEK_MODEL": "e", "ODEK_MAX_ITER": "30", "ODEK_MAX_TOOL_PARALLEL": "5", "ODEK_STREAM": "false", "ODEK_NO_COLOR": "false", "ODEK_INTERACTION_MODE": "enhance"}
	flags := []string{"model=f", "max_iterations=40", "max_tool_parallel=6", "stream=true", "no_color=true", "interaction_mode=engaging"}
	type view struct {
		Model       string
		Iter, Par   int
		Stream, NoC bool
		Mode        string
	}
	tests := []struct {
		name string
		fx   fixture
		want view
	}{
		{"global", fixture{global: g}, view{"g", 10, 2, false, false, "verbose"}},
		{"project beats global", fixture{global: g, project: p}, view{"p", 5, 1, true, true, "off"}},
		{"env beats project", fixture{global: g, project: p, env: env}, view{"e", 30, 5, false, false, "enhance"}},
		{"flags beat env", fixture{global: g, project: p, env: env, flags: flags}, view{"f", 40, 6, true, true, "engaging"}},
		{"empty env is unset", fixture{global: g, env: map[string]string{"ODEK_MODEL": "", "ODEK_STREAM": ""}}, view{"g", 10, 2, false, false, "verbose"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := tt.fx.mustLoad(t)
			got := view{c.Model, c.MaxIterations, c.MaxToolParallel, c.Stream, c.NoColor, c.InteractionMode}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBaseURLAndAPIKey(t *testing.T) {
	g := `{"base_url":"https://g.example/v1","api_key":"gk"}`
	tests := []struct {
		name                string
		fx                  fixture
		url, key, keySource string
	}{
		{"defaults", fixture{}, DefaultBaseURL, "", ""},
		{"global", fixture{global: g}, "https://g.example/v1", "gk", "global config api_key"},
		{"OPENAI_*", fixture{global: g, env: map[string]string{"OPENAI_BASE_URL": "https://o/v1", "OPENAI_API_KEY": "ok"}}, "https://o/v1", "ok", "OPENAI_API_KEY"},
		{"ODEK_* beat OPENAI_*", fixture{global: g, env: map[string]string{"OPENAI_BASE_URL": "https://o/v1", "OPENAI_API_KEY": "ok", "ODEK_BASE_URL": "https://e/v1", "ODEK_API_KEY": "ek"}}, "https://e/v1", "ek", "ODEK_API_KEY"},
		{"flag beats env", fixture{env: map[string]string{"ODEK_BASE_URL": "https://e/v1"}, flags: []string{"base_url=http://f/v1"}}, "http://f/v1", "", ""},
		{"secrets.env supplies key", fixture{secrets: "ODEK_API_KEY=sk\n"}, DefaultBaseURL, "sk", "ODEK_API_KEY from HOME/secrets.env"},
		{"env beats secrets.env", fixture{secrets: "ODEK_API_KEY=sk\n", env: map[string]string{"ODEK_API_KEY": "ek"}}, DefaultBaseURL, "ek", "ODEK_API_KEY"},
		{"global key expands ${VAR}", fixture{global: `{"api_key":"${MY_KEY}"}`, env: map[string]string{"MY_KEY": "mk"}}, DefaultBaseURL, "mk", "global config api_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := tt.fx.mustLoad(t)
			source := strings.Replace(c.APIKeySource, c.Home, "HOME", 1)
			if c.BaseURL != tt.url || c.APIKey != tt.key || source != tt.keySource {
				t.Errorf("got (%q, %q, %q), want (%q, %q, %q)", c.BaseURL, c.APIKey, source, tt.url, tt.key, tt.keySource)
			}
		})
	}
}

func TestRequireAPIKey(t *testing.T) {
	tests := []struct {
		url, key string
		ok       bool
	}{
		{"https://api.openai.com/v1", "", false},
		{"https://api.openai.com/v1", "k", true},
		{"http://localhost:11434/v1", "", true},
		{"http://LOCALHOST./v1", "", true},
		{"http://gpu.localhost:8000/v1", "", true},
		{"http://127.0.0.1:8000/v1", "", true},
		{"http://127.9.9.9/v1", "", true},
		{"http://[::1]:8000/v1", "", true},
		{"http://localhost.evil.example/v1", "", false},
		{"http://10.0.0.1/v1", "", false},
		{"http://0.0.0.0/v1", "", false},
		{"::bad", "", false},
	}
	for _, tt := range tests {
		c := &Config{BaseURL: tt.url, APIKey: tt.key, Home: "/h/.odek"}
		err := c.RequireAPIKey()
		if (err == nil) != tt.ok {
			t.Errorf("%q key %q: err = %v, want ok=%v", tt.url, tt.key, err, tt.ok)
			continue
		}
		if err == nil {
			continue
		}
		want := `no API key: set ODEK_API_KEY (or OPENAI_API_KEY), or put "api_key" in /h/.odek/config.json`
		if err.Error() != want || !errors.Is(err, ErrNoAPIKey) || !errors.Is(err, ErrSetup) {
			t.Errorf("err = %q, want %q matching ErrNoAPIKey and ErrSetup", err, want)
		}
	}
}

func TestEnvErrors(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"ODEK_STREAM": "maybe"}, `ODEK_STREAM="maybe": not a boolean (use true or false)`},
		{map[string]string{"ODEK_NO_COLOR": "yes"}, `ODEK_NO_COLOR="yes": not a boolean (use true or false)`},
		{map[string]string{"ODEK_PLANNING": "2"}, `ODEK_PLANNING="2": not a boolean (use true or false)`},
		{map[string]string{"ODEK_MAX_ITER": "ten"}, `ODEK_MAX_ITER="ten": not an integer`},
		{map[string]string{"ODEK_MAX_ITER": "-1"}, `ODEK_MAX_ITER must be a non-negative number, got -1`},
		{map[string]string{"ODEK_MAX_TOOL_PARALLEL": "-1"}, `ODEK_MAX_TOOL_PARALLEL must be a non-negative number, got -1`},
		{map[string]string{"ODEK_INTERACTION_MODE": "loud"}, `ODEK_INTERACTION_MODE: unknown value "loud" (want engaging, enhance, verbose or off)`},
	}
	for _, tt := range tests {
		_, _, err := fixture{env: tt.env}.load(t)
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrSetup) {
			t.Errorf("%v: err = %v, want %q", tt.env, err, tt.want)
		}
	}
}

func TestFlagErrors(t *testing.T) {
	tests := []struct {
		flags []string
		want  string
	}{
		{[]string{"max_iterations=-2"}, "--max-iter must be a non-negative number, got -2"},
		{[]string{"limits.max_tool_calls=-1"}, "--max-tool-calls must be a non-negative number, got -1"},
		{[]string{"limits.max_runtime_seconds=-5"}, "--max-runtime must be a non-negative number, got -5"},
		{[]string{"interaction_mode=loud"}, `--interaction-mode: unknown value "loud" (want engaging, enhance, verbose or off)`},
	}
	for _, tt := range tests {
		_, _, err := fixture{flags: tt.flags}.load(t)
		if err == nil || err.Error() != tt.want {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
	}
}

func TestNoColorEnv(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"NO_COLOR": "1"}, true},
		{map[string]string{"NO_COLOR": ""}, false},
		{map[string]string{"NO_COLOR": "1", "ODEK_NO_COLOR": "false"}, false},
		{map[string]string{"ODEK_NO_COLOR": "1"}, true},
	}
	for _, tt := range tests {
		c, _ := fixture{env: tt.env}.mustLoad(t)
		if c.NoColor != tt.want {
			t.Errorf("%v: NoColor = %v", tt.env, c.NoColor)
		}
	}
}

func TestTools(t *testing.T) {
	fx := fixture{
		global:  `{"tools":{"enabled":["read","write"],"disabled":["shell"]}}`,
		project: `{"tools":{"disabled":["write","shell"]}}`,
		env:     map[string]string{"ODEK_TOOLS_DISABLED": " patch ,, ", "ODEK_TOOLS_ENABLED": "read, search"},
		flags:   []string{"tools.disabled=search"},
	}
	c, _ := fx.mustLoad(t)
	if diff := cmp.Diff([]string{"read", "search"}, c.ToolsEnabled); diff != "" {
		t.Errorf("enabled (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"shell", "write", "patch", "search"}, c.ToolsDisabled); diff != "" {
		t.Errorf("disabled (-want +got):\n%s", diff)
	}
	c, _ = fixture{global: `{"tools":{"enabled":["read"]}}`, flags: []string{"tools.enabled=x"}}.mustLoad(t)
	if diff := cmp.Diff([]string{"x"}, c.ToolsEnabled); diff != "" {
		t.Errorf("flag enabled (-want +got):\n%s", diff)
	}
}

func TestSecretsEnv(t *testing.T) {
	fx := fixture{
		secrets: "# comment\n\nA=from-file\nexport B = \"quoted value\" \nC='single'\nbad line\n1X=no\nPATHX=x\r\n",
		env:     map[string]string{"A": "real"},
		global:  `{"model":"${B}"}`,
	}
	c, w := fx.mustLoad(t)
	if diff := cmp.Diff(map[string]string{"B": "quoted value", "C": "single", "PATHX": "x"}, c.Env); diff != "" {
		t.Errorf("Env (-want +got):\n%s", diff)
	}
	// A is the real environment's, but secrets.env declared it a secret.
	if diff := cmp.Diff([]string{"A", "B", "C", "PATHX"}, c.SecretNames); diff != "" {
		t.Errorf("SecretNames (-want +got):\n%s", diff)
	}
	if v, _ := c.LookupEnv("A"); v != "real" {
		t.Errorf("secrets.env overwrote A: %q", v)
	}
	if v, ok := c.LookupEnv("C"); v != "single" || !ok {
		t.Errorf("LookupEnv(C) = %q, %v", v, ok)
	}
	if c.Model != "quoted value" {
		t.Errorf("model = %q: ${B} should see secrets.env", c.Model)
	}
	want := []string{
		"HOME/secrets.env:6: ignoring line: want KEY=VALUE with KEY matching [A-Za-z_][A-Za-z0-9_]*",
		"HOME/secrets.env:7: ignoring line: want KEY=VALUE with KEY matching [A-Za-z_][A-Za-z0-9_]*",
	}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// A file whose every name the environment overrides provides no value
	// but still names its secrets.
	c, _ = fixture{secrets: "A=x\nA=y\n", env: map[string]string{"A": "real"}}.mustLoad(t)
	if len(c.Env) != 0 || !slices.Equal(c.SecretNames, []string{"A"}) {
		t.Errorf("Env %v, SecretNames %q", c.Env, c.SecretNames)
	}
}

// TestSetPair: -c key=value sets any setting with the same type checks as
// its file value, and beats every other layer (issue 9 item 7).
func TestSetPair(t *testing.T) {
	var o Overrides
	for _, pair := range []string{"model=flagged", "base_url=http://127.0.0.1:9/v1", "llm.idle_timeout_seconds=1m30s",
		"limits.max_tool_calls=7", "tools.disabled=a,b", "tools.disabled=c", "max_iterations=3",
		`dangerous={"denylist": ["rm -rf /"]}`} {
		if err := o.SetPair(pair); err != nil {
			t.Fatalf("SetPair(%q): %v", pair, err)
		}
	}
	home, dir := t.TempDir(), t.TempDir()
	c, _, err := Load(LoadOptions{Home: home, Dir: dir, Flags: o,
		LookupEnv: mapLookup(map[string]string{"ODEK_MODEL": "env", "ODEK_MAX_ITER": "50"})})
	if err != nil {
		t.Fatal(err)
	}
	got := []any{c.Model, c.BaseURL, c.LLM.IdleTimeout, c.Limits.MaxToolCalls, c.ToolsDisabled, c.MaxIterations,
		c.Dangerous.Denylist, c.Source("model"), c.Source("max_iterations")}
	want := []any{"flagged", "http://127.0.0.1:9/v1", 90 * time.Second, int64(7), []string{"a", "b", "c"}, 3,
		[]string{"rm -rf /"}, "-c model", "-c max_iterations"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	tests := []struct{ pair, want string }{
		{"max_iterations=x", "max_iterations: not an integer"},
		{"stream=maybe", "stream: not a boolean (use true or false)"},
		{"llm.idle_timeout_seconds=soon", "llm.idle_timeout_seconds: not a duration (use seconds or a duration such as 90, 90s, 10m or 1h30m)"},
		{"llm.idle_timeout_seconds=1.5s", "llm.idle_timeout_seconds: 1.5s is not a whole number of seconds (use e.g. 90, 90s, 10m or 1h30m)"},
		{"max_iteration=3", `unknown setting "max_iteration"; did you mean "max_iterations"? (docs/CONFIG.md lists them all)`},
		{"zzz=1", `unknown setting "zzz" (docs/CONFIG.md lists them all)`},
		{"novalue", "want key=value, e.g. -c max_iterations=20"},
		{"api_key=sk-123", "api_key: cannot be set on the command line, where ps would show it; use ODEK_API_KEY or secrets.env"},
		{"mcp_servers={}", "mcp_servers: cannot be set on the command line; set it in a config file"},
		{`dangerous={"classes": []}`, `dangerous: "dangerous.classes" must be an object, got array`},
		{`dangerous=[1]`, `dangerous: want a JSON object`},
	}
	for _, tt := range tests {
		var o Overrides
		if err := o.SetPair(tt.pair); err == nil || err.Error() != tt.want {
			t.Errorf("SetPair(%q) = %v, want %q", tt.pair, err, tt.want)
		}
	}
	// Range checks happen in Load, naming the -c key.
	_, _, err = fixture{flags: []string{"planning.max_steps=-1"}}.load(t)
	if err == nil || err.Error() != "-c planning.max_steps must be a non-negative number, got -1" {
		t.Errorf("err = %v", err)
	}
}
