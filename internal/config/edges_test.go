package config

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/mcpclient"
)

// A cost cap needs both prices: either one missing makes it unenforceable.
func TestRequireEnforceableBudgetNeedsBothPrices(t *testing.T) {
	for _, tt := range []struct {
		prices budget.Prices
		ok     bool
	}{
		{budget.Prices{}, false},
		{budget.Prices{InputPerMillionUSD: 1}, false},
		{budget.Prices{OutputPerMillionUSD: 1}, false},
		{budget.Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, true},
	} {
		c := &Config{Model: "m", Limits: budget.Limits{MaxCostUSD: 1}, Prices: tt.prices}
		err := c.RequireEnforceableBudget()
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrUnenforceableBudget)) {
			t.Errorf("prices %+v: err = %v, want ok %v", tt.prices, err, tt.ok)
		}
	}
}

// Values read from a file: strings are JSON-decoded (escapes, invalid
// UTF-8), a number may start with any digit, and a list is not a duration.
func TestFileValueDecoding(t *testing.T) {
	c, _ := fixture{global: `{"model": "a\u0062c\td", "limits": {"max_cost_usd": 9.5, "input_cost_per_million_usd": 1, "output_cost_per_million_usd": 1}}`}.mustLoad(t)
	if c.Model != "abc\td" || c.Limits.MaxCostUSD != 9.5 {
		t.Errorf("model %q, max_cost_usd %v", c.Model, c.Limits.MaxCostUSD)
	}
	for raw, want := range map[string]string{
		"a\x80b": "a\uFFFDb", "\x80\x81": "\uFFFD\uFFFD", // invalid UTF-8: replaced, as encoding/json does
		`\\`: `\`, `\\\\`: `\\`, `\"`: `"`, `\u00e9`: "é", "é": "é",
	} {
		c, _ = fixture{global: `{"model": "` + raw + `"}`}.mustLoad(t)
		if c.Model != want {
			t.Errorf("model written %q: got %q, want %q", raw, c.Model, want)
		}
	}
	_, _, err := fixture{global: `{"llm": {"first_byte_timeout_seconds": [90]}}`}.load(t)
	if err == nil || !strings.Contains(err.Error(), "llm.first_byte_timeout_seconds") {
		t.Errorf("a list as a duration: err = %v", err)
	}
}

func TestJSONFields(t *testing.T) {
	type sample struct {
		A      int `json:"a,omitempty"`
		Skip   int `json:"-"`
		hidden int
		Plain  int
	}
	_ = sample{hidden: 0}
	got := jsonFields(reflect.TypeFor[sample]())
	if len(got) != 2 || !got["a"] || !got["Plain"] {
		t.Errorf("jsonFields = %v, want a and Plain only", got)
	}
}

// Command-line values are taken as written: no ${VAR} expansion.
func TestCommandLineObjectKeepsDollar(t *testing.T) {
	c, _ := fixture{flags: []string{`model_context_windows={"m$x": 1000}`, `dangerous={"denylist": ["rm -rf $HOME"]}`},
		env: map[string]string{"HOME": "/home/u"}}.mustLoad(t)
	if _, ok := c.ModelContextWindows["m$x"]; !ok {
		t.Errorf("context windows = %v, want the key m$x as written", c.ModelContextWindows)
	}
	if !slicesContains(c.Dangerous.Denylist, "rm -rf $HOME") {
		t.Errorf("denylist = %q, want the entry as written", c.Dangerous.Denylist)
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestCommandLineValueErrors(t *testing.T) {
	for _, tt := range []struct{ pair, want string }{
		{"limits.max_cost_usd=NaN", "not a number"},
		{"limits.max_cost_usd=Inf", "not a number"},
		{"limits.max_cost_usd=-Inf", "not a number"},
		{`limits.model_prices={bad`, "want a JSON object"},
		{`limits.model_prices=[1]`, "want a JSON object"},
		{`limits.model_prices={"m": {"input_cost_per_million_usd": -1}}`, "input_cost_per_million_usd"},
	} {
		var o Overrides
		key, value, _ := strings.Cut(tt.pair, "=")
		err := o.Set(key, value, "-c "+key)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("-c %s: err = %v, want %q", tt.pair, err, tt.want)
		}
	}
}

func TestParseSecondsRange(t *testing.T) {
	top, bottom := int64(math.MaxInt64/int64(time.Second)), int64(math.MinInt64/int64(time.Second))
	for _, tt := range []struct {
		n  int64
		ok bool
	}{{top, true}, {top + 1, false}, {bottom, true}, {bottom - 1, false}, {0, true}} {
		_, err := ParseSeconds(strconv.FormatInt(tt.n, 10))
		if (err == nil) != tt.ok {
			t.Errorf("ParseSeconds(%d): err = %v, want ok %v", tt.n, err, tt.ok)
		}
	}
}

// A cap set only from above (Hi) binds, also on a duration.
func TestClampOnlyFromAbove(t *testing.T) {
	c, w := fixture{flags: []string{"subagent.timeout_seconds=3600", "subagent.max_depth=9"}}.mustLoad(t)
	if c.Subagent.Timeout != 1800*time.Second || c.Subagent.MaxDepth != 8 {
		t.Errorf("timeout %v, depth %d: want the caps 1800s and 8", c.Subagent.Timeout, c.Subagent.MaxDepth)
	}
	if len(w) != 2 || !strings.Contains(strings.Join(w, "\n"), "exceeds the cap of") {
		t.Errorf("warnings %q", w)
	}
}

func TestSourceOfUnknownOrUnloaded(t *testing.T) {
	c, _ := fixture{global: `{"model": "x"}`}.mustLoad(t)
	if got := c.Source("no.such.key"); got != "" {
		t.Errorf("Source of an unknown key = %q", got)
	}
	if got := (&Config{}).Source("model"); got != "" {
		t.Errorf("Source on a Config not made by Load = %q", got)
	}
}

func TestExpandNameEdges(t *testing.T) {
	env := map[string]string{"a": "1", "z": "2", "A": "3", "Z": "4", "_": "5", "x0": "6", "x9": "7"}
	for name, want := range map[string]string{"a": "1", "z": "2", "A": "3", "Z": "4", "_": "5", "x0": "6", "x9": "7"} {
		if got := Expand("${"+name+"}", mapLookup(env)); got != want {
			t.Errorf("Expand(${%s}) = %q, want %q", name, got, want)
		}
		if got := Expand("$"+name+"!", mapLookup(env)); got != want+"!" {
			t.Errorf("Expand($%s!) = %q", name, got)
		}
	}
	// Bytes just outside the name ranges end a bare $name.
	for _, c := range []string{"`", "{", "@", "[", "/", ":"} {
		if got := Expand("$x0"+c, mapLookup(env)); got != "6"+c {
			t.Errorf("Expand($x0%s) = %q", c, got)
		}
	}
}

func TestSecretsFileLines(t *testing.T) {
	for _, tt := range []struct {
		line     string
		key, val string
		ok, bad  bool
	}{
		{"KEY=plainvalue", "KEY", "plainvalue", true, false},
		{`KEY=""`, "KEY", "", true, false},
		{`KEY="x"`, "KEY", "x", true, false},
		{`KEY='a b'`, "KEY", "a b", true, false},
		{`KEY="unbalanced'`, "KEY", `"unbalanced'`, true, false},
		{`KEY="`, "KEY", `"`, true, false},
		{"export KEY=v", "KEY", "v", true, false},
		{"NOEQUALS", "", "", false, true},
		{"=v", "", "", false, true},
		{"9KEY=v", "", "", false, true},
		{"# comment", "", "", false, false},
	} {
		k, v, ok, bad := parseSecretLine(tt.line)
		if k != tt.key || v != tt.val || ok != tt.ok || bad != tt.bad {
			t.Errorf("parseSecretLine(%q) = %q %q %v %v", tt.line, k, v, ok, bad)
		}
	}
	// One line without a trailing newline is read whole.
	c, _ := fixture{secrets: "ONLY_LINE_SECRET=" + strings.Repeat("s", 5000)}.mustLoad(t)
	if v, _ := c.LookupEnv("ONLY_LINE_SECRET"); len(v) != 5000 {
		t.Errorf("single-line secrets.env: value of %d bytes", len(v))
	}
}

func TestSecretsFileTooLarge(t *testing.T) {
	t.Parallel()
	_, _, err := fixture{secrets: "K=" + strings.Repeat("v", MaxFileBytes)}.load(t)
	if !errors.Is(err, ErrFileTooLarge) {
		t.Fatalf("oversized secrets.env: %v", err)
	}
}

func TestConfigFileOfExactlyTheLimit(t *testing.T) {
	t.Parallel()
	// The closing brace is the last byte: a read cut one byte short fails.
	body := `{"model": "edge"` + strings.Repeat(" ", MaxFileBytes-len(`{"model": "edge"}`)) + `}`
	c, _ := fixture{global: body}.mustLoad(t)
	if c.Model != "edge" {
		t.Fatalf("model %q", c.Model)
	}
}

// The typo limits of the suggestion itself are tested in internal/suggest
// (TestNearestEdges).
func TestHintForEdges(t *testing.T) {
	if h := hintFor("limits.", "disabled"); h != "" {
		t.Errorf("a server hint outside mcp_servers: %q", h)
	}
	if h := hintFor("mcp_servers.x.", "disabled"); h == "" {
		t.Error("no hint for mcp_servers.x.disabled")
	}
}

func TestValidServerNameEdges(t *testing.T) {
	for _, name := range []string{"a", "z", "A", "Z", "0", "9", "_", "-", "a_b", "a-b", strings.Repeat("x", 64)} {
		if !validServerName(name) {
			t.Errorf("validServerName(%q) = false", name)
		}
	}
	for _, name := range []string{"", "`", "{", "@", "[", "/", ":", ".", "a__b", "é", strings.Repeat("x", 65)} {
		if validServerName(name) {
			t.Errorf("validServerName(%q) = true", name)
		}
	}
}

func TestIsOffSwitch(t *testing.T) {
	off := false
	for _, tt := range []struct {
		s    mcpclient.ServerConfig
		want bool
	}{
		{mcpclient.ServerConfig{Enabled: &off}, true},
		{mcpclient.ServerConfig{Command: "x", Enabled: &off}, false},
		{mcpclient.ServerConfig{URL: "https://x", Enabled: &off}, false},
		{mcpclient.ServerConfig{}, false},
	} {
		if got := isOffSwitch(tt.s); got != tt.want {
			t.Errorf("isOffSwitch(%+v) = %v", tt.s, got)
		}
	}
}

func TestOffOnly(t *testing.T) {
	for _, tt := range []struct {
		cur, project, want bool
		warns              int
	}{
		{false, false, false, 0}, {true, true, true, 0}, {true, false, false, 0}, {false, true, false, 1},
	} {
		got, ign := offOnly(tt.cur, tt.project, "G")
		if got != tt.want || len(ign) != tt.warns {
			t.Errorf("offOnly(cur %v, project %v) = %v, %d warnings", tt.cur, tt.project, got, len(ign))
		}
	}
}

func TestDangerousFinishKeepsWhatIsSet(t *testing.T) {
	d := Dangerous{Action: "deny", NonInteractive: "prompt"}
	d.finish()
	if d.Action != "deny" || d.NonInteractive != "prompt" {
		t.Errorf("finish changed a set policy: %+v", d)
	}
	var e Dangerous
	e.finish()
	if e.Action != "prompt" || e.NonInteractive != "deny" {
		t.Errorf("defaults: %+v", e)
	}
}

// Errors point at the offending value, past nested siblings, blanks and
// line breaks.
func TestErrorPositions(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"{\n  \"x_unknown\": [1, {\"a\": [2]}, {\"b\": {}}],\n  \"limits\": {\"max_tool_calls\": \"many\"}\n}\n",
			`HOME/config.json:3:32: "limits.max_tool_calls" must be an integer, got string`},
		{`{"limits": 5}`, `HOME/config.json:1:12: "limits" must be an object, got number`},
		{`{"subagent": {"a": {"b": [1,2]}, "max_depth": true}}`, `HOME/config.json:1:47: "subagent.max_depth" must be an integer, got bool`},
		{"{\"limits\" : {\"max_tool_calls\" :\n\t\"x\"}}", `HOME/config.json:2:2: "limits.max_tool_calls" must be an integer, got string`},
	} {
		_, _, err := fixture{global: tt.file}.load(t)
		if err == nil || scrubErr(t, err) != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.file, err, tt.want)
		}
	}
}

// A project value equal to a known secret is not expanded, from the
// shortest known secret (8 bytes) up; shorter values are not matched.
func TestProjectExpansionRefusesKnownSecretValues(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want string
	}{{"k8chars!", ""}, {"k7char!", "k7char!"}} {
		fx := fixture{
			env:     map[string]string{"ODEK_API_KEY": tt.key, "WORKSPACE": tt.key},
			global:  `{"project_env_allow":["WORKSPACE"]}`,
			project: `{"mcp_servers":{"x":{"command":"srv","args":["${WORKSPACE}"]}}}`,
		}
		c, w := fx.mustLoad(t)
		if got := c.MCPServers[0].Config.Args[0]; got != tt.want {
			t.Errorf("key of %d bytes: arg %q, want %q (warnings %q)", len(tt.key), got, tt.want, w)
		}
	}
}

// Durations a project file sets are compared with the global ones as
// durations: only lowering wins.
func TestProjectMayOnlyLowerADuration(t *testing.T) {
	global := `{"limits": {"max_runtime_seconds": 600}}`
	c, w := fixture{global: global, project: `{"limits": {"max_runtime_seconds": 6000}}`}.mustLoad(t)
	if c.Limits.MaxRuntimeSeconds != 600 || len(w) != 1 || !strings.Contains(w[0], "clamped to 600") {
		t.Errorf("raised: runtime %d, warnings %q", c.Limits.MaxRuntimeSeconds, w)
	}
	c, w = fixture{global: global, project: `{"limits": {"max_runtime_seconds": "5m"}}`}.mustLoad(t)
	if c.Limits.MaxRuntimeSeconds != 300 || len(w) != 0 {
		t.Errorf("lowered: runtime %d, warnings %q", c.Limits.MaxRuntimeSeconds, w)
	}
}

// Token limits beyond what a duration can hold compare exactly.
func TestProjectLowersLargeTokenLimits(t *testing.T) {
	c, w := fixture{global: `{"limits": {"max_input_tokens": 20000000000}}`,
		project: `{"limits": {"max_input_tokens": 10000000000}}`}.mustLoad(t)
	if c.Limits.MaxInputTokens != 10_000_000_000 || len(w) != 0 {
		t.Errorf("max_input_tokens %d, warnings %q", c.Limits.MaxInputTokens, w)
	}
}
