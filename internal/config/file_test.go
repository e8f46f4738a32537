package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"missing comma", "{\n  \"model\": \"m\"\n  \"stream\": true\n}", `DIR/odek.json:3:3: invalid JSON: invalid character '"' after object key:value pair`},
		{"truncated", "{\n  \"model\": \"m\",\n", `DIR/odek.json:2:16: invalid JSON: unexpected end of JSON input`},
		{"truncated in a key", `{"mod`, `DIR/odek.json:1:6: invalid JSON: unexpected end of JSON input`},
		{"trailing garbage", "{} x", `DIR/odek.json:1:4: invalid JSON: invalid character 'x' after top-level value`},
		{"wrong type", "{\n  \"model\": \"m\",\n  \"max_iterations\": \"x\"\n}", `DIR/odek.json:3:21: "max_iterations" must be an integer, got string`},
		{"nested wrong type", "{\"limits\": {\n\t\"max_tool_calls\": 1.5}}", `DIR/odek.json:2:20: "limits.max_tool_calls" must be an integer, got number 1.5`},
		{"server field", `{"mcp_servers": {"é": {"args": "x"}}}`, `DIR/odek.json:1:32: "mcp_servers.é.args" must be an array of strings, got string`},
		{"bool", `{"stream": "yes"}`, `DIR/odek.json:1:12: "stream" must be true or false, got string`},
		{"not an object", `[1]`, `DIR/odek.json:1:1: the file must hold a JSON object, got array`},
		{"duration", `{"llm": {"idle_timeout_seconds": "soon"}}`, `DIR/odek.json:1:34: "llm.idle_timeout_seconds" must be seconds or a duration such as 90, 90s, 10m or 1h30m, got string "soon"`},
		{"fractional seconds", `{"llm": {"idle_timeout_seconds": 1.5}}`, `DIR/odek.json:1:34: "llm.idle_timeout_seconds" must be seconds or a duration such as 90, 90s, 10m or 1h30m, got number 1.5`},
		{"section not an object", `{"llm": 5}`, `DIR/odek.json:1:9: "llm" must be an object, got number`},
		{"list element", `{"tools": {"disabled": ["a", 1]}}`, `DIR/odek.json:1:30: "tools.disabled" must be an array of strings, got number`},
		{"nested object", `{"dangerous": {"classes": []}}`, `DIR/odek.json:1:27: "dangerous.classes" must be an object, got array`},
		{"map entry field", `{"profiles": {"p": {"tools": "x"}}}`, `DIR/odek.json:1:30: "profiles.p.tools" must be an array of strings, got string`},
		{"number beyond float64", `{"limits": {"model_prices": {"m": {"input_cost_per_million_usd": 1e400}}}}`, `DIR/odek.json:1:66: "limits.model_prices.m.input_cost_per_million_usd" must be a finite number, got 1e400`},
		{"column counts characters", `{"model": "ééé" "x"}`, `DIR/odek.json:1:17: invalid JSON: invalid character '"' after object key:value pair`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := fixture{project: tt.body}.load(t)
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrSetup) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
			if got := scrubErr(t, err); got != tt.want {
				t.Errorf("err = %q\nwant   %q", got, tt.want)
			}
		})
	}
}

func TestGlobalParseError(t *testing.T) {
	_, _, err := fixture{global: "{\"model\": 5}"}.load(t)
	var pe *ParseError
	if !errors.As(err, &pe) || filepath.Base(pe.File) != "config.json" || pe.Line != 1 || pe.Column != 11 {
		t.Fatalf("err = %#v", err)
	}
}

func TestFileLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "odek.json")
	// Sparse files: the size check must come before any read.
	for _, size := range []int64{MaxFileBytes + 1, 1 << 40} {
		if err := os.Truncate(path, 0); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		_, _, err := Load(LoadOptions{Dir: dir})
		want := fmt.Sprintf("config: %s is %d bytes, over the 5242880-byte (5 MiB) limit", path, size)
		if err == nil || err.Error() != want || !errors.Is(err, ErrFileTooLarge) || !errors.Is(err, ErrSetup) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	// Exactly at the limit is fine (whitespace keeps the decode cheap).
	atLimit := "{}" + strings.Repeat(" ", MaxFileBytes-2)
	if err := os.WriteFile(path, []byte(atLimit), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(LoadOptions{Dir: dir}); err != nil {
		t.Errorf("file of exactly MaxFileBytes: %v", err)
	}
}

func TestNotRegularFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "odek.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, _, err := Load(LoadOptions{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "odek.json is not a regular file") {
		t.Errorf("err = %v", err)
	}
}

func TestEmptyAndMissingFiles(t *testing.T) {
	c, w := fixture{project: " \n\t"}.mustLoad(t)
	if len(w) != 0 || len(c.Files) != 1 || c.Model != DefaultModel {
		t.Errorf("whitespace file: warnings %q files %q", w, c.Files)
	}
	c, w, err := Load(LoadOptions{Home: filepath.Join(t.TempDir(), "nope"), Dir: t.TempDir()})
	if err != nil || len(w) != 0 || len(c.Files) != 0 {
		t.Errorf("missing files: %v %q %q", err, w, c.Files)
	}
}

func TestFileValueErrors(t *testing.T) {
	tests := []struct{ global, want string }{
		{`{"max_iterations": -1}`, "HOME/config.json: max_iterations must be a non-negative number, got -1"},
		{`{"max_tool_parallel": -2}`, "HOME/config.json: max_tool_parallel must be a non-negative number, got -2"},
		{`{"maintenance": {"artifacts_max_age_hours": -1}}`, "HOME/config.json: maintenance.artifacts_max_age_hours must be a non-negative number, got -1"},
		{`{"interaction_mode": "${MODE}"}`, `HOME/config.json: interaction_mode: unknown value "" (want engaging, enhance, verbose or off)`},
		{`{"limits": {"max_tool_calls": -1}}`, "HOME/config.json: limits.max_tool_calls must be a non-negative number, got -1"},
		{`{"limits": {"max_cost_usd": -0.5}}`, "HOME/config.json: limits.max_cost_usd must be a non-negative number, got -0.5"},
		{`{"limits": {"model_prices": {"m": {"input_cost_per_million_usd": -1}}}}`, "HOME/config.json: limits.model_prices.m.input_cost_per_million_usd must be a non-negative number, got -1"},
	}
	for _, tt := range tests {
		_, _, err := fixture{global: tt.global}.load(t)
		if err == nil || scrubErr(t, err) != tt.want {
			t.Errorf("%s: err = %v, want %q", tt.global, err, tt.want)
		}
	}
}

func TestUnknownKeys(t *testing.T) {
	global := `{"modle": "x", "//": "comment", "// more": 1, "telegram": true, "$schema": "s",
	  "limits": {"max_runtime": 60, "max_tool_call": 5, "//": "c", "model_prices": {"m": {"input_cost": 1}}},
	  "tools": {"enable": []}, "mcp_servers": {"s": {"command": "c", "comand": "d", "type": "stdio", "//": "c"}},
	  "planning": {"max_step": 3}, "maintenance": {"x": 1}, "subagent": {"whatever": 1}}`
	_, w := fixture{global: global}.mustLoad(t)
	want := []string{
		`unknown key "limits.max_runtime" in HOME/config.json; did you mean "limits.max_runtime_seconds"?`,
		`unknown key "limits.max_tool_call" in HOME/config.json; did you mean "limits.max_tool_calls"?`,
		`unknown key "limits.model_prices.m.input_cost" in HOME/config.json; did you mean "limits.model_prices.m.input_cost_per_million_usd"?`,
		`unknown key "maintenance.x" in HOME/config.json`,
		`unknown key "mcp_servers.s.comand" in HOME/config.json; did you mean "mcp_servers.s.command"?`,
		`unknown key "modle" in HOME/config.json; did you mean "model"?`,
		`unknown key "planning.max_step" in HOME/config.json; did you mean "planning.max_steps"?`,
		`unknown key "subagent.whatever" in HOME/config.json`,
		`unknown key "tools.enable" in HOME/config.json; did you mean "tools.enabled"?`,
	}
	want = append(want, `HOME/config.json: "telegram" is an upstream odek setting this odek does not implement; ignoring it`)
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestKeysAreCaseExact: encoding/json matches struct fields regardless of
// case; the config does not. A key in another case is unknown and unused.
func TestKeysAreCaseExact(t *testing.T) {
	global := `{"Model": "m2", "mcp_servers": {"Srv": {"Command": "evil", "command": "good", "Auto_Approve": true,
	  "env": {"LOG_LEVEL": "debug", "log_level": "x"}}}, "limits": {"model_prices": {"Qwen/Qwen2.5-7B-Instruct": {"input_cost_per_million_usd": 1}}}}`
	c, w := fixture{global: global}.mustLoad(t)
	want := []string{`unknown key "Model" in HOME/config.json; did you mean "model"?`,
		`unknown key "mcp_servers.Srv.Auto_Approve" in HOME/config.json; did you mean "mcp_servers.Srv.auto_approve"?`,
		`unknown key "mcp_servers.Srv.Command" in HOME/config.json; did you mean "mcp_servers.Srv.command"?`}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	s := c.MCPServers[0]
	if c.Model != DefaultModel || s.Name != "Srv" || s.Config.Command != "good" || s.Config.AutoApprove {
		t.Errorf("model %q, server %+v", c.Model, s)
	}
	if diff := cmp.Diff(map[string]string{"LOG_LEVEL": "debug", "log_level": "x"}, s.Config.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if _, ok := c.ModelPrices["Qwen/Qwen2.5-7B-Instruct"]; !ok {
		t.Errorf("model_prices = %v", c.ModelPrices)
	}
}

// TestUnknownKeyHints: issue 9 item 3. A typo names the key it is close
// to; keys from other tools' config formats get an explicit answer.
func TestUnknownKeyHints(t *testing.T) {
	project := `{"mcpServers": {}, "max_iteratons": 5, "limts": {}, "xyz": 1,
	  "mcp_servers": {"s": {"command": "c", "headers": {}, "disabled": true, "transport": "stdio", "cwd": "/",
	    "autoApprove": true, "timeout": 5}}}`
	_, w := fixture{project: project}.mustLoad(t)
	want := []string{
		`unknown key "limts" in DIR/odek.json; did you mean "limits"?`,
		`unknown key "max_iteratons" in DIR/odek.json; did you mean "max_iterations"?`,
		`unknown key "mcpServers" in DIR/odek.json: odek reads "mcp_servers" (the Claude Code name "mcpServers" is not read)`,
		`unknown key "mcp_servers.s.autoApprove" in DIR/odek.json; did you mean "mcp_servers.s.auto_approve"?`,
		`unknown key "mcp_servers.s.cwd" in DIR/odek.json: odek starts a server in the working directory; use an absolute command path`,
		`unknown key "mcp_servers.s.disabled" in DIR/odek.json: odek reads "enabled": false`,
		`unknown key "mcp_servers.s.headers" in DIR/odek.json: odek sends one Bearer token, read from the variable token_env names; other headers are not supported`,
		`unknown key "mcp_servers.s.timeout" in DIR/odek.json; did you mean "mcp_servers.s.timeout_seconds"?`,
		`unknown key "mcp_servers.s.transport" in DIR/odek.json: odek picks the transport from "command" (stdio) or "url" (Streamable HTTP)`,
		`unknown key "xyz" in DIR/odek.json`,
	}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestExpandScope(t *testing.T) {
	global := `{"model": "${M}", "system": "cost: $9.99 $$ ${M}", "tools": {"disabled": ["$T"]},
	  "mcp_servers": {"s": {"command": "${BIN}/srv", "args": ["--root=${ROOT}"], "env": {"K": "${ROOT}", "L": "$$"},
	    "url": "", "artifact_roots": ["${ROOT}/out"]}},
	  "profiles": {"${M}": {"max_risk": "safe", "allowlist": ["${BIN}/ok"]}}, "subagent": {"default_profile": "${M}"}}`
	env := map[string]string{"M": "m1", "T": "shell", "BIN": "/bin", "ROOT": "/r"}
	c, _ := fixture{global: global, env: env}.mustLoad(t)
	s := c.MCPServers[0].Config
	got := []string{c.Model, c.System, c.ToolsDisabled[0], s.Command, s.Args[0], s.Env["K"], s.Env["L"], s.ArtifactRoots[0]}
	want := []string{"m1", "cost: $9.99 $ m1", "shell", "/bin/srv", "--root=/r", "${ROOT}", "$$", "/r/out"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Map keys (profile names) are never expanded; values inside are.
	wantProfiles := map[string]Profile{"${M}": {MaxRisk: "safe", Allowlist: []string{"/bin/ok"}}}
	if diff := cmp.Diff(wantProfiles, c.Profiles); diff != "" || c.Subagent.DefaultProfile != "m1" {
		t.Errorf("profiles (-want +got):\n%s\ndefault_profile %q", diff, c.Subagent.DefaultProfile)
	}
}

func TestSecretsModeWarning(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "secrets.env")
	if err := os.WriteFile(path, []byte("K=v\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	c, w, err := Load(LoadOptions{Home: home})
	want := []string{"HOME/secrets.env is readable by other users (mode 0644); run: chmod 600 HOME/secrets.env"}
	if err != nil || c.Env["K"] != "v" {
		t.Fatalf("Load: %v, env %v", err, c.Env)
	}
	if diff := cmp.Diff(want, scrub(w, home, "DIR")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func FuzzLoad(f *testing.F) {
	for _, s := range []string{`{}`, `{"model":"m","limits":{"max_tool_calls":5,"model_prices":{"a":{}}}}`,
		`{"mcp_servers":{"a":{"command":"c","auto_approve":true}}}`, `{"planning":{"enabled":true,"max_steps":99}}`,
		`[`, `{"tools":{"enabled":["x"]},"base_url":"${X}"}`, "{\"a\":1\n\"b\"}",
		`{"shell":{"env_passthrough":["A","B_1","C"]},"project_env_allow":["X"],"model":"${X}"}`} {
		f.Add([]byte(s))
	}
	home := f.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.json"),
		[]byte(`{"limits":{"max_tool_calls":10},"mcp_servers":{"a":{"auto_approve":true}},"shell":{"env_passthrough":["A","B_*"]}}`), 0o600); err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir() // each fuzz worker runs the targets one at a time
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, "odek.json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, _, err := Load(LoadOptions{Home: home, Dir: dir, LookupEnv: mapLookup(map[string]string{"X": "fuzzvalue77"})})
		if (c == nil) == (err == nil) {
			t.Fatalf("config %v and error %v", c, err)
		}
		if err != nil {
			if !errors.Is(err, ErrSetup) {
				t.Fatalf("error %v is not a setup error", err)
			}
			return
		}
		// The trust rules must hold whatever the project file says.
		if c.BaseURL != DefaultBaseURL || c.APIKey != "" || c.ToolsEnabled != nil || c.Limits.MaxToolCalls > 10 {
			t.Fatalf("project raised trust: %+v", c)
		}
		if c.ProjectEnvAllow != nil || strings.Contains(c.Model, "fuzzvalue77") && !bytes.Contains(data, []byte("fuzzvalue77")) {
			t.Fatalf("project listed or expanded a variable: %q, model %q", c.ProjectEnvAllow, c.Model)
		}
		for _, e := range c.ShellEnvPassthrough {
			if e != "A" && e != "B_*" && (strings.HasSuffix(e, "*") || !strings.HasPrefix(e, "B_")) {
				t.Fatalf("project widened shell.env_passthrough: %q", c.ShellEnvPassthrough)
			}
		}
		for _, s := range c.MCPServers {
			if s.Project && s.Config.AutoApprove && s.Name != "a" {
				t.Fatalf("project server %q auto-approved", s.Name)
			}
		}
	})
}

// BenchmarkLoad loads a typical global and project file pair plus secrets.
func BenchmarkLoad(b *testing.B) {
	home, dir := b.TempDir(), b.TempDir()
	files := map[string]string{
		filepath.Join(home, "config.json"): string(Template(true)),
		filepath.Join(home, "secrets.env"): "ODEK_API_KEY=sk-test\n# comment\nOTHER=1\n",
		filepath.Join(dir, "odek.json"): `{"model":"gpt-4o","tools":{"disabled":["shell"]},"limits":{"max_tool_calls":50},
		  "mcp_servers":{"repo":{"command":"node","args":["${PWD}/srv.js"],"timeout_seconds":60}}}`,
	}
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	o := LoadOptions{Home: home, Dir: dir, LookupEnv: mapLookup(map[string]string{"PWD": "/w"})}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}
