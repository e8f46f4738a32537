package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// testGate approves every server and tool, unless spawn says otherwise.
type testGate struct {
	spawn func(ServerSpec) (bool, []string, error)
}

func (g testGate) Spawn(_ context.Context, s ServerSpec) (bool, []string, error) {
	if g.spawn == nil {
		return true, nil, nil
	}
	return g.spawn(s)
}

func (testGate) Tools(_ context.Context, _ ServerSpec, t []ToolDef) ([]ToolDef, []string, error) {
	return t, nil, nil
}

// fixtureSpec is a server running the shared fixture binary.
func fixtureSpec(t *testing.T, name string, flags ...string) ServerSpec {
	return ServerSpec{Name: name, Config: ServerConfig{Command: fixtureBin,
		Args: append([]string{"-root", t.TempDir()}, flags...)}}
}

func startSet(t *testing.T, o StartOptions) (*Set, []string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o.Client.Environ = testEnviron
	if o.Gate == nil {
		o.Gate = testGate{}
	}
	set, warns, err := Start(ctx, o)
	if set != nil {
		t.Cleanup(func() { _ = set.Close() })
	}
	return set, warns, err
}

func TestStartRegistersTools(t *testing.T) {
	set, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "b"), fixtureSpec(t, "a")}})
	if err != nil {
		t.Fatal(err)
	}
	tools := set.Tools()
	if len(tools) != 2*len(fixtureToolNames) {
		t.Fatalf("%d tools", len(tools))
	}
	for i := 1; i < len(tools); i++ {
		if tools[i-1].Name() >= tools[i].Name() {
			t.Fatalf("not sorted: %s, %s", tools[i-1].Name(), tools[i].Name())
		}
	}
	if tools[0].Name() != "a__artifact_result" || !strings.Contains(tools[0].Description(), `source="mcp:a:artifact_result">`+"\nfixture tool artifact_result\n") {
		t.Fatalf("first tool %s: %q", tools[0].Name(), tools[0].Description())
	}
	var echo *ToolAdapter
	for _, tl := range tools {
		if tl.Name() == "b__echo" {
			echo = tl
		}
	}
	out, err := echo.Call(context.Background(), json.RawMessage(`{"text":"hi"}`))
	if err != nil || !strings.Contains(out, "hi") {
		t.Fatalf("call through the set: %q %v", out, err)
	}
	if len(set.Clients()) != 2 {
		t.Fatal("clients")
	}
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	if err := set.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
}

var fixtureToolNames = []string{"echo", "echo_env", "large_result", "huge_line", "endless_line", "artifact_result",
	"bad_artifact", "slow", "error_result", "garbage", "wrong_ids", "crash", "hang", "flood",
	"server_requests", "mixed_content", "state", "rpc_error"}

func TestStartSpawnApprovalBeforeAnySpawn(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "spawned")
	global := ServerSpec{Name: "global", Config: ServerConfig{Command: "/bin/sh",
		Args: []string{"-c", `touch "$0"; exec "$1" -root "$2"`, marker, fixtureBin, t.TempDir()}}}
	project := fixtureSpec(t, "proj")
	project.Project, project.Dir = true, "/repo"
	refuse := testGate{spawn: func(s ServerSpec) (bool, []string, error) {
		if s.Project {
			return false, nil, errors.New("not approved: " + s.Name)
		}
		return true, nil, nil
	}}
	_, _, err := startSet(t, StartOptions{Servers: []ServerSpec{global, project}, Gate: refuse})
	var se *SetupError
	if err == nil || err.Error() != "not approved: proj" || !errors.As(err, &se) || se.Server != "proj" {
		t.Fatalf("err = %v", err)
	}
	if _, statErr := os.Stat(marker); statErr == nil {
		t.Fatal("a server was spawned before every spawn approval was settled")
	}
}

func TestStartNeedsGate(t *testing.T) {
	_, _, err := Start(context.Background(), StartOptions{Servers: []ServerSpec{fixtureSpec(t, "a")}})
	if !errors.Is(err, errNoGate) {
		t.Fatalf("err = %v", err)
	}
}

// DECISION 18: a raw tool name equal to a built-in's shadows nothing.
func TestStartRawBuiltinNamesRegisterQualified(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	set, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "a")},
		Builtins: []string{"read_file", "echo"}})
	if err != nil {
		t.Fatalf("a server with a tool named like a built-in must start: %v", err)
	}
	defer set.Close()
	var names []string
	for _, tl := range set.Tools() {
		names = append(names, tl.Name())
	}
	if !slices.Contains(names, "a__echo") || slices.Contains(names, "echo") {
		t.Errorf("tools %v, want a__echo and no bare echo", names)
	}
}

func TestStartFailureClosesOthers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	_, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "good1"), fixtureSpec(t, "bad", "-exit_now"), fixtureSpec(t, "good2")}})
	var se *SetupError
	if err == nil || !strings.HasPrefix(err.Error(), `mcp server "bad": `) || !strings.Contains(err.Error(), "unknown option --frobnicate") ||
		!errors.As(err, &se) || se.Server != "bad" {
		t.Fatalf("err = %v", err)
	}
}

// The stderr tail in a setup error cannot drive the terminal it is printed on.
func TestStartFailureTailSanitised(t *testing.T) {
	_, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "bad", "-hostile_stderr", "-exit_now")}})
	if err == nil || !strings.Contains(err.Error(), `\u001b]0;pwned\u0007\u001b]52;c;cHduZWQ=\u0007\u001b[2Jhostile`) ||
		strings.ContainsAny(err.Error(), "\x1b\x07\r") {
		t.Fatalf("err = %q", err)
	}
}

func TestStartConnectError(t *testing.T) {
	bad := ServerSpec{Name: "nocmd", Config: ServerConfig{}}
	_, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "ok"), bad}})
	if err == nil || err.Error() != `mcp server "nocmd": mcpclient nocmd: server config must set either url or command` {
		t.Fatalf("err = %v", err)
	}
}

func TestStartSpecs(t *testing.T) {
	off := false
	disabled := ServerSpec{Name: "off", Config: ServerConfig{Enabled: &off}} // would fail to connect if started
	set, _, err := startSet(t, StartOptions{Servers: []ServerSpec{disabled}})
	if err != nil || len(set.Tools()) != 0 {
		t.Fatalf("disabled server: %v", err)
	}
	_, _, err = startSet(t, StartOptions{Servers: []ServerSpec{{Name: "x"}, {Name: "x"}}})
	if err == nil || err.Error() != `mcp server "x": defined more than once` {
		t.Fatalf("duplicate: %v", err)
	}
}

func TestRegisterToolsNameChecks(t *testing.T) {
	ap := testGate{}
	schema := json.RawMessage(`{"type":"object"}`)
	srv := func(name string, tools ...string) startedServer {
		st := startedServer{spec: ServerSpec{Name: name}, client: &Client{name: name}}
		for _, tl := range tools {
			st.tools = append(st.tools, ToolDef{Name: tl, InputSchema: schema})
		}
		return st
	}
	tests := []struct {
		name     string
		started  []startedServer
		builtins []string
		want     string
	}{
		{"raw name is a builtin", []startedServer{srv("a", "x"), srv("b", "x")}, []string{"x", "plan"}, ""},
		{"qualified name is a builtin", []startedServer{srv("a", "x")}, []string{"a__x"}, `mcp server "a": tool "x" shadows a built-in tool`},
		{"duplicate tool", []startedServer{srv("a", "x", "x")}, nil, `mcp server "a": tool "x" collides with tool "a__x" of server "a"`},
		{"fine", []startedServer{srv("a", "x"), srv("b", "x")}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools, _, err := registerTools(context.Background(), tt.started, ap, reservedNames(tt.builtins))
			if tt.want == "" {
				if err != nil || len(tools) != 2 || tools[0].Name() != "a__x" || tools[1].Name() != "b__x" {
					t.Fatalf("tools %v err %v", tools, err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestKeepTools(t *testing.T) {
	started := []startedServer{{spec: ServerSpec{Name: "a"}, tools: []ToolDef{{Name: "x"}, {Name: "y"}}}, {spec: ServerSpec{Name: "b"}, tools: []ToolDef{{Name: "x"}}}}
	got := keepTools(started, func(q string) bool { return q != "a__y" && q != "b__x" })
	if len(got[0].tools) != 1 || got[0].tools[0].Name != "x" || len(got[1].tools) != 0 {
		t.Fatalf("kept = %+v", got)
	}
	if all := keepTools(started, nil); len(all[0].tools) != 1 {
		t.Fatalf("nil keep changed the list: %+v", all)
	}
}

// Discovered names every tool the servers listed, also those Keep dropped
// (a tool filter may name them); ListedDescription is the server's text
// without the fence the model gets.
func TestStartDiscoveredAndListed(t *testing.T) {
	set, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "a")},
		Keep: func(q string) bool { return q == "a__echo" }})
	if err != nil {
		t.Fatal(err)
	}
	if d := set.Discovered(); len(d) != len(fixtureToolNames) || d[0] != "a__artifact_result" {
		t.Fatalf("discovered %v", d)
	}
	tools := set.Tools()
	if len(tools) != 1 || tools[0].ListedDescription() != "fixture tool echo" ||
		!strings.Contains(tools[0].Description(), "<untrusted_content_") {
		t.Fatalf("tools %d, listed %q, model sees %q", len(tools), tools[0].ListedDescription(), tools[0].Description())
	}
	if (&ToolAdapter{Desc: "plain"}).ListedDescription() != "plain" {
		t.Fatal("an adapter without Listed lists Desc")
	}
}

// A server's description reaches the model fenced as untrusted; odek's own
// placeholder and an empty description stay as they are. Listings show the
// server's text unfenced.
func TestNewApprovedAdapterDescriptions(t *testing.T) {
	c := &Client{name: "s"}
	for desc, fenced := range map[string]bool{"": false, DescriptionPlaceholder: false, "does things": true} {
		a := newApprovedAdapter(c, "s", ToolDef{Name: "t", Description: desc})
		if a.Listed != desc {
			t.Errorf("%q: listed %q", desc, a.Listed)
		}
		isFenced := strings.HasPrefix(a.Description(), "<untrusted_content_") && strings.Contains(a.Description(), "\n"+desc+"\n")
		if isFenced != fenced || !fenced && a.Description() != desc {
			t.Errorf("%q: the model sees %q, fenced %v, want fenced %v", desc, a.Description(), isFenced, fenced)
		}
	}
}

// A start failure carries the server's stderr tail exactly once: added when
// the reason lacks it (a protocol error), not repeated when the reason has
// it already (an exit error quotes the tail itself).
func TestStartFailureStderrTailOnce(t *testing.T) {
	tests := []struct {
		flags []string
		tail  string
	}{
		{[]string{"-exit_now"}, "error: unknown option --frobnicate"},
		{[]string{"-hostile_stderr", "-version", "1999-01-01"}, `\u001b]0;pwned\u0007\u001b]52;c;cHduZWQ=\u0007\u001b[2Jhostile`},
	}
	for _, tt := range tests {
		_, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "bad", tt.flags...)}})
		if err == nil || strings.Count(err.Error(), tt.tail) != 1 {
			t.Errorf("%v: err = %v, want the tail %q once", tt.flags, err, tt.tail)
		}
	}
	_, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "bad", "-hostile_stderr", "-version", "1999-01-01")}})
	if err == nil || !strings.HasSuffix(err.Error(), "; stderr tail: "+tests[1].tail) {
		t.Errorf("protocol failure: err = %v, want the stderr tail appended", err)
	}
}

// trust_annotations reaches the adapters of an operator server only: a
// project server's hints are never trusted, whatever its config says.
func TestStartTrustAnnotations(t *testing.T) {
	t.Parallel()
	trusted, plain, project := fixtureSpec(t, "trusted"), fixtureSpec(t, "plain"), fixtureSpec(t, "project")
	trusted.Config.TrustAnnotations = true
	project.Config.TrustAnnotations, project.Project, project.Dir = true, true, t.TempDir()
	set, _, err := startSet(t, StartOptions{Servers: []ServerSpec{trusted, plain, project}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range set.Tools() {
		if want := tl.Client.Name() == "trusted"; tl.TrustHints != want {
			t.Errorf("%s: TrustHints = %v, want %v", tl.Name(), tl.TrustHints, want)
		}
	}
}
