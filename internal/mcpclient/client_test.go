package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/sandbox"
)

func TestConfigValidation(t *testing.T) {
	u := "http://127.0.0.1:1/mcp" // never dialled: Connect does not talk MCP
	tests := []struct {
		name    string
		cfg     ServerConfig
		wantErr string
		warn    string
	}{
		{"ok", ServerConfig{URL: u}, "", ""},
		{"neither", ServerConfig{}, `mcpclient s: server config must set either url or command`, ""},
		{"neg timeout", ServerConfig{URL: u, TimeoutSeconds: -1}, `mcp server "s": timeout_seconds -1 must not be negative`, ""},
		{"neg bytes", ServerConfig{URL: u, MaxResponseBytes: -1}, `mcp server "s": max_response_bytes -1 must not be negative`, ""},
		{"neg chars", ServerConfig{URL: u, MaxResultChars: -1}, `mcp server "s": max_result_chars -1 must not be negative`, ""},
		{"ceiling", ServerConfig{URL: u, MaxResponseBytes: 64<<20 + 1}, `mcp server "s": max_response_bytes 67108865 exceeds the 67108864-byte ceiling`, ""},
		{"at the ceiling", ServerConfig{URL: u, MaxResponseBytes: 64 << 20}, "", ""},
		{"timeout clamp", ServerConfig{URL: u, TimeoutSeconds: 7200}, "", `mcp server "s": timeout_seconds 7200 exceeds the hard cap; clamped to 3600`},
		{"timeout one over the cap", ServerConfig{URL: u, TimeoutSeconds: 3601}, "", `mcp server "s": timeout_seconds 3601 exceeds the hard cap; clamped to 3600`},
		{"timeout at the cap", ServerConfig{URL: u, TimeoutSeconds: 3600}, "", ""},
		{"chars clamp", ServerConfig{URL: u, MaxResultChars: 2000000}, "", `mcp server "s": max_result_chars 2000000 exceeds the hard cap; clamped to 1000000`},
		{"chars one over the cap", ServerConfig{URL: u, MaxResultChars: 1000001}, "", `mcp server "s": max_result_chars 1000001 exceeds the hard cap; clamped to 1000000`},
		{"chars at the cap", ServerConfig{URL: u, MaxResultChars: 1000000}, "", ""},
		{"userinfo", ServerConfig{URL: "https://user:pw@example.com/mcp"}, `mcpclient s: url must not embed credentials (userinfo); use token_env`, ""},
		{"relative", ServerConfig{URL: "/mcp"}, `mcpclient s: url must be an absolute http or https URL with a host`, ""},
		{"scheme", ServerConfig{URL: "ftp://example.com/"}, `mcpclient s: url must be an absolute http or https URL with a host`, ""},
		{"empty token", ServerConfig{URL: u, TokenEnv: "MY_TOKEN"}, "", `mcp server "s": token_env "MY_TOKEN" is unset or empty; connecting without a bearer token`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Connect(context.Background(), "s", tc.cfg, Options{LookupEnv: func(string) (string, bool) { return "", false }})
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || classOf(err) != classSetup {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "pw") {
					t.Error("error echoes credentials")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer closeWithin(t, c)
			if got := strings.Join(c.Warnings(), "\n"); got != tc.warn {
				t.Errorf("warnings %q, want %q", got, tc.warn)
			}
		})
	}
}

// Zero settings take the defaults, set ones apply, values past a hard cap
// apply as the cap, with a warning each; a value at its cap warns of
// nothing. An idle timeout not below timeout_seconds has no effect and is
// warned about; the retired max_call_seconds is ignored with a warning that
// says what replaced it.
func TestEffectiveLimits(t *testing.T) {
	retired := `mcp server "s": max_call_seconds is retired and ignored: timeout_seconds (30) is the deadline of each tool call whole, ` +
		`progress included; raise timeout_seconds to the longest a call may take, and set idle_timeout_seconds to fail a call that goes quiet sooner`
	tests := []struct {
		cfg   ServerConfig
		want  limits
		warns []string
	}{
		{ServerConfig{}, limits{DefaultTimeout, 0, DefaultMaxResponseBytes, DefaultMaxResultChars, 1}, nil},
		{ServerConfig{TimeoutSeconds: 2, IdleTimeoutSeconds: 1, MaxResponseBytes: 1, MaxResultChars: 1}, limits{2 * time.Second, time.Second, 1, 1, 1}, nil},
		{ServerConfig{TimeoutSeconds: 3600, IdleTimeoutSeconds: 3599, MaxResponseBytes: 64 << 20, MaxResultChars: 1000000},
			limits{time.Hour, 3599 * time.Second, 64 << 20, 1000000, 1}, nil},
		{ServerConfig{TimeoutSeconds: 3601, MaxResultChars: 1000001}, limits{time.Hour, 0, DefaultMaxResponseBytes, 1000000, 1}, []string{
			`mcp server "s": timeout_seconds 3601 exceeds the hard cap; clamped to 3600`,
			`mcp server "s": max_result_chars 1000001 exceeds the hard cap; clamped to 1000000`}},
		{ServerConfig{IdleTimeoutSeconds: 9999}, limits{DefaultTimeout, 0, DefaultMaxResponseBytes, DefaultMaxResultChars, 1}, []string{
			`mcp server "s": idle_timeout_seconds 9999 exceeds the hard cap; clamped to 3600`,
			`mcp server "s": idle_timeout_seconds 3600 is not below timeout_seconds 30, the deadline of the whole call; it has no effect`}},
		{ServerConfig{TimeoutSeconds: 60, IdleTimeoutSeconds: 60}, limits{time.Minute, 0, DefaultMaxResponseBytes, DefaultMaxResultChars, 1}, []string{
			`mcp server "s": idle_timeout_seconds 60 is not below timeout_seconds 60, the deadline of the whole call; it has no effect`}},
		{ServerConfig{MaxCallSeconds: 600}, limits{DefaultTimeout, 0, DefaultMaxResponseBytes, DefaultMaxResultChars, 1}, []string{retired}},
		{ServerConfig{MaxCallSeconds: -1}, limits{DefaultTimeout, 0, DefaultMaxResponseBytes, DefaultMaxResultChars, 1}, []string{retired}},
		{ServerConfig{RestartLimit: ptr(0)}, limits{DefaultTimeout, 0, DefaultMaxResponseBytes, DefaultMaxResultChars, 0}, nil},
		{ServerConfig{RestartLimit: ptr(11)}, limits{DefaultTimeout, 0, DefaultMaxResponseBytes, DefaultMaxResultChars, 10}, []string{
			`mcp server "s": restart_limit 11 exceeds the hard cap; clamped to 10`}},
	}
	for _, tt := range tests {
		tt.cfg.URL = "http://127.0.0.1:1/mcp"
		got, warn, err := checkConfig("s", tt.cfg)
		if err != nil || got != tt.want || strings.Join(warn, "\n") != strings.Join(tt.warns, "\n") {
			t.Errorf("checkConfig(%+v) = %+v, %q, %v; want %+v and %q", tt.cfg, got, warn, err, tt.want, tt.warns)
		}
	}
	if _, _, err := checkConfig("s", ServerConfig{URL: "http://127.0.0.1:1/mcp", IdleTimeoutSeconds: -1}); err == nil ||
		err.Error() != `mcp server "s": idle_timeout_seconds -1 must not be negative` {
		t.Errorf("negative idle timeout: %v", err)
	}
	for cfg, want := range map[*ServerConfig]string{
		{URL: "http://h/mcp", RestartLimit: ptr(-1)}:                                                         `mcp server "s": restart_limit -1 must not be negative`,
		{Command: "x", OAuth: &OAuthConfig{ClientID: "c", ClientSecretEnv: "E"}}:                             `mcp server "s": oauth logs in to a url server; a command server has no use for it`,
		{URL: "http://h/mcp", TokenEnv: "T", OAuth: &OAuthConfig{ClientID: "c", ClientSecretEnv: "E"}}:       `mcp server "s": set either token_env or oauth, not both`,
		{URL: "http://h/mcp", OAuth: &OAuthConfig{ClientSecretEnv: "E"}}:                                     `mcp server "s": oauth.client_id is required`,
		{URL: "http://h/mcp", OAuth: &OAuthConfig{ClientID: "c"}}:                                            `mcp server "s": oauth needs exactly one of client_secret_env, client_secret_file, private_key_file`,
		{URL: "http://h/mcp", OAuth: &OAuthConfig{ClientID: "c", ClientSecretEnv: "E", PrivateKeyFile: "k"}}: `mcp server "s": oauth needs exactly one of client_secret_env, client_secret_file, private_key_file`,
	} {
		if _, _, err := checkConfig("s", *cfg); err == nil || err.Error() != want {
			t.Errorf("checkConfig(%+v) = %v, want %s", *cfg, err, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestSecretLookingName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "api-key": true, "GITHUB_TOKEN": true, "db_password": true, "AWS_SECRET_ACCESS_KEY": true,
		"MY_CREDS": true, "SSH_PRIVATE_KEY": true, "PASSWD": true, "GPG_PASSPHRASE": true, "SESSION_COOKIE": true,
		"HTTP_AUTHORIZATION": true, "PATH": false, "HOME": false, "LOG_LEVEL": false, "TOKENIZER": true,
	} {
		if secretLookingName(name) != want {
			t.Errorf("secretLookingName(%q) = %v", name, !want)
		}
	}
}

func TestChildEnv(t *testing.T) {
	env, refused := childEnv([]string{"PATH=/bin", "HOME=/h", "AWS_SECRET=x", "EDITOR=vi", "TZ=UTC"},
		map[string]string{"TZ": "", "X": "1", "API_KEY": "k", "A=B": "c"})
	if got := strings.Join(env, " "); got != "HOME=/h PATH=/bin X=1" {
		t.Errorf("env %q", got)
	}
	if got := strings.Join(refused, " "); got != "A=B API_KEY" {
		t.Errorf("refused %q", got)
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{"echo": true, "a-b_c9": true, "": false, "a__b": false, "_a": true,
		strings.Repeat("a", 64): true, strings.Repeat("a", 65): false, "a.b": false, "ä": false, "a b": false,
		// each range at its ends, and the byte just outside each end
		"a": true, "z": true, "A": true, "Z": true, "0": true, "9": true, "-": true, "_": true,
		"`": false, "{": false, "@": false, "[": false, "/": false, ":": false, "^": false, ",": false,
		// "__" anywhere, also leading or trailing; a single "_" at either end is fine
		"__a": false, "a__": false, "__": false, "a_": true, "a_b_c": true} {
		if validName(name) != want {
			t.Errorf("validName(%q) = %v", name, !want)
		}
	}
}

// A tool without a schema (absent or JSON null) is offered as any object; a
// schema the server gave is passed on unchanged.
func TestToolAdapterSchema(t *testing.T) {
	const given = `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`
	for in, want := range map[string]string{"": `{"type":"object"}`, "null": `{"type":"object"}`, given: given, "{}": "{}"} {
		if got := string((&ToolAdapter{ParamSchema: json.RawMessage(in)}).Schema()); got != want {
			t.Errorf("schema %q: got %s, want %s", in, got, want)
		}
	}
}

// clip keeps a string of exactly n runes whole and cuts one of n+1 to n
// runes and "…", counting runes, not bytes.
func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 0, ""},
		{"a", 0, "…"},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"äöü", 3, "äöü"},
		{"äöüß", 3, "äöü…"},
		{"ab", 5, "ab"},
	}
	for _, tt := range tests {
		if got := clip(tt.in, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestNormalizeArgs(t *testing.T) {
	for in, want := range map[string]string{"": "{}", "null": "{}", " {\"a\":1} ": `{"a":1}`, "not json": `"not json"`, "[1]": "[1]"} {
		if got := string(normalizeArgs(json.RawMessage(in))); got != want {
			t.Errorf("normalizeArgs(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestToolAdapter(t *testing.T) {
	f := startFixture(t, ServerConfig{})
	var echo ToolDef
	for _, td := range f.tools {
		if td.Name == "echo" {
			echo = td
		}
	}
	a := NewToolAdapter(f.c, echo)
	if a.Name() != "fx__echo" || a.Description() != "fixture tool echo" || string(a.Schema()) != `{"type":"object"}` {
		t.Fatalf("adapter %q %q %s", a.Name(), a.Description(), a.Schema())
	}
	if string((&ToolAdapter{Client: f.c}).Schema()) != `{"type":"object"}` {
		t.Error("nil schema not defaulted")
	}
	for args, want := range map[string]string{"": "\n{}\n", "not json": "\n\"not json\"\n", `{"k":"v"}`: "\n{\"k\":\"v\"}\n"} {
		out, err := a.Call(context.Background(), json.RawMessage(args))
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("Call(%q) = %q, %v", args, out, err)
		}
	}
}

type memStore struct {
	mu   sync.Mutex
	data map[string][]byte
}

func (s *memStore) SaveResult(source, mediaType string, data []byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := fmt.Sprintf("result-%d", len(s.data)+1)
	s.data[id] = data
	return id, nil
}

func (s *memStore) Register(v artifact.Verified, id string) error { return nil }

// A validated artifact ref becomes readable through artifact_read by its id.
func TestValidatedArtifactRegistered(t *testing.T) {
	root := t.TempDir()
	store := artifact.NewStore(t.TempDir())
	c, err := Connect(context.Background(), "fx", ServerConfig{Command: fixtureBin, Args: []string{"-root", root}, ArtifactRoots: []string{root}},
		Options{Store: store, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.callToolResult(context.Background(), "artifact_result", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	out, err := artifact.NewReadTool(store).Call(context.Background(), []byte(`{"id":"report-1"}`))
	if err != nil {
		t.Fatalf("artifact_read report-1: %v", err)
	}
	if !strings.Contains(out, "artifact report-1 (application/xml, 39 bytes") {
		t.Errorf("artifact_read output = %q", out)
	}
}

func TestTruncatedResultSaved(t *testing.T) {
	store := &memStore{data: map[string][]byte{}}
	f := &fixture{root: t.TempDir()}
	c, err := Connect(context.Background(), "fx", ServerConfig{Command: fixtureBin, Args: []string{"-root", f.root}, MaxResultChars: 1000},
		Options{Environ: testEnviron, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, err := c.callToolResult(context.Background(), "large_result", json.RawMessage(`{"n":5000}`))
	if err != nil {
		t.Fatal(err)
	}
	body := unwrap(t, r.Text, "mcp:fx:large_result")
	want := "max_result_chars=1000; the full result is available via the retained artifact references, if any]\n" +
		`- artifact "result-1" (text/plain; charset=utf-8, 5000 bytes): full untruncated result of fx__large_result; page through it with artifact_read`
	if !strings.HasSuffix(body, want) || !r.Truncated || r.ArtifactCount != 1 || len(store.data["result-1"]) != 5000 {
		t.Fatalf("body %q count %d", body[len(body)-300:], r.ArtifactCount)
	}
}

func TestCallBeforeDiscover(t *testing.T) {
	c, err := Connect(context.Background(), "s", ServerConfig{URL: "http://127.0.0.1:1/"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(context.Background(), "x", "{}"); err == nil || !strings.Contains(err.Error(), "call Discover first") {
		t.Fatalf("err = %v", err)
	}
}

// A sandboxed server gets the policy's private temp dir as TMPDIR (the one
// place besides the workspace it may write), not the operator's.
func TestSandboxedServerGetsThePolicysTempDir(t *testing.T) {
	tmp := t.TempDir()
	cfg := ServerConfig{Command: fixtureBin, Args: []string{"-root", t.TempDir()}}
	o := Options{Environ: append([]string{"TMPDIR=/operator/tmp"}, testEnviron...),
		Sandbox: func(ServerConfig) (*sandbox.Policy, error) {
			return &sandbox.Policy{Mode: sandbox.ModeOff, TempDir: tmp}, nil
		}}
	c, _, err := connectDiscovered(t, "sb", cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := c.callToolResult(ctx, "echo_env", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body := unwrap(t, r.Text, "mcp:sb:echo_env")
	if !slices.Contains(strings.Split(strings.TrimSpace(body), "\n"), "TMPDIR="+tmp) {
		t.Errorf("child env lacks TMPDIR=%s:\n%s", tmp, body)
	}
	if strings.Contains(body, "/operator/tmp") {
		t.Errorf("child env kept the operator's TMPDIR:\n%s", body)
	}
}

// A project server's artifact refs count only where its roots lie inside
// the project directory; with no directory known no root holds, so the
// ref a server with a directory may cite is rejected.
func TestProjectServerArtifactRootsNeedItsDirectory(t *testing.T) {
	for _, tt := range []struct {
		name    string
		dir     func(root string) string
		wantErr string
	}{
		{"inside the project", func(root string) string { return root }, ""},
		{"no project directory", func(string) string { return "" }, "no artifact_roots are configured for this server"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := ServerConfig{Command: fixtureBin, Args: []string{"-root", root}, ArtifactRoots: []string{root}}
			c, _, err := connectDiscovered(t, "fx", cfg, Options{Environ: testEnviron, project: true, dir: tt.dir(root)})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r, err := c.callToolResult(ctx, "artifact_result", json.RawMessage(`{}`))
			if tt.wantErr == "" {
				if err != nil || r.ArtifactCount != 1 {
					t.Errorf("got %v, %+v; want one artifact", err, r)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// A replay, a recorder, a sandbox policy or a process that cannot be set
// up fails Connect, naming which step; no server is left running for a
// failed recorder.
func TestConnectSetupFailures(t *testing.T) {
	cfg := ServerConfig{Command: fixtureBin, Args: []string{"-root", t.TempDir()}}
	for _, tt := range []struct {
		o    Options
		cfg  *ServerConfig
		want string
	}{
		{Options{Sandbox: func(ServerConfig) (*sandbox.Policy, error) { return nil, errors.New("no landlock") }}, nil,
			"mcpclient fx: sandbox " + fixtureBin + ": no landlock"},
		{Options{}, &ServerConfig{Command: "/nonexistent/odek-mcp-server"}, "mcpclient fx: start /nonexistent/odek-mcp-server: "},
		{Options{Replay: func(string) (Peer, error) { return nil, errors.New("no cassette") }}, nil, "mcpclient fx: replay: no cassette"},
		{Options{Tap: func(string) (WireTap, error) { return nil, errors.New("disk full") }}, nil, "mcpclient fx: record: disk full"},
	} {
		tt.o.Environ = testEnviron
		sc := cfg
		if tt.cfg != nil {
			sc = *tt.cfg
		}
		c, err := Connect(context.Background(), "fx", sc, tt.o)
		if c != nil {
			t.Cleanup(func() { _ = c.Close() })
		}
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("err = %v, want %s", err, tt.want)
		}
	}
}
