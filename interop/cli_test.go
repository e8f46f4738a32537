package interop_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/mcpclient"
)

// cliCase is one peer driven through the real odek binary: odek tools must
// list it, and a one-call odek run must hand the tool's data to the model
// (the fake LLM's second turn matches only if the data came back).
type cliCase struct {
	name   string
	server func(t *testing.T) mcpclient.ServerConfig
	tool   string // on the server
	args   string
	want   string // in the tool result the model reads
	era    string // as odek tools --json reports it
}

func cliCases(t *testing.T) []cliCase {
	fsDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(fsDir, "note.txt"), []byte("the quick brown fox\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	note, _ := filepath.EvalSymlinks(filepath.Join(fsDir, "note.txt"))
	weather := func(t *testing.T) string { return `{"city":"Oslo"}` }
	return []cliCase{
		{"ts-stdio", func(t *testing.T) mcpclient.ServerConfig { return tsStdio(t) }, "weather", weather(t), `"temp_c":21.5`, "modern"},
		{"ts-stdio-reject", func(t *testing.T) mcpclient.ServerConfig { return tsStdio(t, "--legacy=reject") }, "weather", weather(t), `"temp_c":21.5`, "modern"},
		{"ts-http", func(t *testing.T) mcpclient.ServerConfig { return mcpclient.ServerConfig{URL: startTSHTTP(t)} }, "weather", weather(t), `"temp_c":21.5`, "modern"},
		{"ts1-stdio", func(t *testing.T) mcpclient.ServerConfig {
			return mcpclient.ServerConfig{Command: "node", Args: []string{requirePeer(t, peerTS1)}}
		}, "echo", `{"message":"hi"}`, "Echo: hi", "legacy"},
		{"ts-http-reject", func(t *testing.T) mcpclient.ServerConfig {
			return mcpclient.ServerConfig{URL: startTSHTTP(t, "--legacy=reject")}
		}, "weather", weather(t), `"temp_c":21.5`, "modern"},
		{"go-stdio", func(t *testing.T) mcpclient.ServerConfig {
			return mcpclient.ServerConfig{Command: requirePeer(t, peerGo)}
		},
			"weather", weather(t), `"temp_c":21.5`, "modern"},
		{"go-http-stateless", func(t *testing.T) mcpclient.ServerConfig {
			return mcpclient.ServerConfig{URL: startGoHTTP(t, "-stateless")}
		}, "weather", weather(t), `"temp_c":21.5`, "modern"},
		{"everything", func(t *testing.T) mcpclient.ServerConfig {
			return mcpclient.ServerConfig{Command: requirePeer(t, peerEverything)}
		}, "get-structured-content", `{"location":"New York"}`, `"conditions":"Cloudy"`, "legacy"},
		// Issue 22 item 8: read_file, write_file and search_files are built-in
		// names too; the server's tools register as fs__… and shadow nothing.
		{"filesystem", func(t *testing.T) mcpclient.ServerConfig {
			return mcpclient.ServerConfig{Command: requirePeer(t, peerFilesystem), Args: []string{filepath.Dir(note)}}
		}, "read_text_file", fmt.Sprintf(`{"path":%q}`, note), "the quick brown fox", "legacy"},
	}
}

func TestCLIAgainstPeers(t *testing.T) {
	t.Parallel()
	for _, tc := range cliCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			odek := requirePeer(t, peerOdek)
			dir := t.TempDir()
			cfg := tc.server(t)
			cfg.AutoApprove = true // an --mcp-config file is operator-trusted
			mcpFile := writeJSON(t, filepath.Join(dir, "mcp.json"), map[string]any{"mcp_servers": map[string]any{"peer": cfg}})
			qualified := "peer__" + tc.tool

			out := runOdek(t, odek, dir, "", "tools", "--json", "--mcp-config", mcpFile)
			var listing []struct {
				Name, Era, Server string
				ProtocolVersion   string `json:"protocol_version"`
			}
			if err := json.Unmarshal([]byte(out), &listing); err != nil {
				t.Fatalf("odek tools --json: %v\n%s", err, out)
			}
			found := false
			for _, l := range listing {
				if l.Name == qualified {
					found = true
					if l.Era != tc.era || l.Server != "peer" || l.ProtocolVersion == "" {
						t.Errorf("%s listed with era %q server %q version %q, want era %s", qualified, l.Era, l.Server, l.ProtocolVersion, tc.era)
					}
				}
			}
			if !found {
				t.Fatalf("odek tools --json does not list %s:\n%s", qualified, out)
			}

			script := fmt.Sprintf(`{"turns": [
			  {"tool_calls": [{"id": "call_1", "name": %q, "arguments": %s}]},
			  {"match": %q, "content": "The data arrived."}
			]}`, qualified, tc.args, tc.want)
			sc, err := fakellm.ParseScript([]byte(script))
			if err != nil {
				t.Fatal(err)
			}
			srv, err := fakellm.Start(sc, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Close() })
			got := runOdek(t, odek, dir, srv.URL(), "run", "-q", "--mcp-config", mcpFile, "--events-jsonl", filepath.Join(dir, "ev.jsonl"), "use the tool")
			if strings.TrimSpace(got) != "The data arrived." {
				t.Errorf("odek run printed %q", got)
			}
			ev, _ := os.ReadFile(filepath.Join(dir, "ev.jsonl"))
			if !bytes.Contains(ev, []byte(`"era":"`+tc.era+`"`)) {
				t.Errorf("run_started does not report era %s:\n%s", tc.era, head(string(ev), 2000))
			}
		})
	}
}

func writeJSON(t *testing.T, path string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runOdek runs the binary in dir with a private home and fails on a
// non-zero exit, showing stderr.
func runOdek(t *testing.T, odek, dir, baseURL string, args ...string) string {
	t.Helper()
	cmd := exec.Command(odek, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "ODEK_HOME=" + filepath.Join(dir, ".odek"),
		"ODEK_API_KEY=test-key", "ODEK_BASE_URL=" + baseURL, "LANG=C.UTF-8"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("odek %s: %v\nstderr:\n%s", strings.Join(args, " "), err, tail(stderr.String(), 4000))
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("odek %s did not finish within 60s\nstderr:\n%s", strings.Join(args, " "), tail(stderr.String(), 4000))
	}
	return stdout.String()
}

// TestCLIFollowsResourceLink: the model gets a resource_link from
// server-everything and follows it with mcp_resource_read, through the real
// binary; the third turn matches only on the resource's own text.
func TestCLIFollowsResourceLink(t *testing.T) {
	t.Parallel()
	odek := requirePeer(t, peerOdek)
	dir := t.TempDir()
	cfg := mcpclient.ServerConfig{Command: requirePeer(t, peerEverything), AutoApprove: true}
	mcpFile := writeJSON(t, filepath.Join(dir, "mcp.json"), map[string]any{"mcp_servers": map[string]any{"peer": cfg}})
	out := runOdek(t, odek, dir, "", "tools", "--mcp-config", mcpFile)
	if !strings.Contains(out, "mcp_resource_read") {
		t.Fatalf("a server advertising resources, but no mcp_resource_read:\n%s", out)
	}
	sc, err := fakellm.ParseScript([]byte(`{"turns": [
	  {"tool_calls": [{"id": "c1", "name": "peer__get-resource-links", "arguments": {"count": 2}}]},
	  {"match": "[resource link: demo://resource/dynamic/text/2", "tool_calls": [{"id": "c2", "name": "mcp_resource_read",
	    "arguments": {"server": "peer", "uri": "demo://resource/dynamic/text/2"}}]},
	  {"match": "resource demo://resource/dynamic/text/2 from peer — bytes 0..", "content": "Followed."}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakellm.Start(sc, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	if got := runOdek(t, odek, dir, srv.URL(), "run", "-q", "--mcp-config", mcpFile, "follow the link"); strings.TrimSpace(got) != "Followed." {
		t.Errorf("odek run printed %q", got)
	}
}

// TestCLIReadOnlyHints: with dangerous.non_interactive "read_only" and no
// terminal, an MCP tool runs only when its server marks it read-only and
// the operator trusts that server's hints (trust_annotations): then the
// TypeScript peer's weather runs and its echo is refused; without the mark
// both are refused, the read-only hint notwithstanding.
func TestCLIReadOnlyHints(t *testing.T) {
	t.Parallel()
	odek := requirePeer(t, peerOdek)
	for _, tc := range []struct {
		name   string
		trust  bool
		script string
	}{
		{"trusted", true, `{"turns": [
		  {"tool_calls": [{"id": "c1", "name": "peer__echo", "arguments": {"message": "hi"}}]},
		  {"match": "operation denied by configuration: peer__echo", "tool_calls": [{"id": "c2", "name": "peer__weather", "arguments": {"city": "Oslo"}}]},
		  {"match": "\"temp_c\":21.5", "content": "Only the read-only tool ran."}
		]}`},
		{"not trusted", false, `{"turns": [
		  {"tool_calls": [{"id": "c1", "name": "peer__weather", "arguments": {"city": "Oslo"}}]},
		  {"match": "operation denied by configuration: peer__weather", "content": "Nothing ran."}
		]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := tsStdio(t)
			cfg.AutoApprove, cfg.TrustAnnotations = true, tc.trust
			home := filepath.Join(dir, ".odek")
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			writeJSON(t, filepath.Join(home, "config.json"), map[string]any{
				"dangerous":   map[string]any{"non_interactive": "read_only"},
				"mcp_servers": map[string]any{"peer": cfg},
			})
			sc, err := fakellm.ParseScript([]byte(tc.script))
			if err != nil {
				t.Fatal(err)
			}
			srv, err := fakellm.Start(sc, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Close() })
			want := map[bool]string{true: "Only the read-only tool ran.", false: "Nothing ran."}[tc.trust]
			if got := runOdek(t, odek, dir, srv.URL(), "run", "-q", "use the tools"); strings.TrimSpace(got) != want {
				t.Errorf("odek run printed %q", got)
			}
		})
	}
}

// TestCLIElicitation: through the real binary, a server's deploy asks for
// confirmation; without configured answers the call fails and an mcp_input
// event says declined; with mcp_servers.<s>.elicitation in the --mcp-config
// file it is answered, the model sees the result, and an mcp_input event
// names the call. Both eras: the TypeScript SDK 2.4 peer asks with a
// 2026-07-28 input_required result, the SDK 1.x peer with a 2025
// elicitation/create request, which it sends only because odek declared
// the capability in initialize. (A 2025 server that is refused the
// capability fails the call itself: no mcp_input event then.)
func TestCLIElicitation(t *testing.T) {
	t.Parallel()
	odek := requirePeer(t, peerOdek)
	for _, tc := range []struct {
		name, peer, tool, match, outcome string
		answers                          map[string]any
	}{
		{"modern-declined", peerTS, "deploy", "-32021", "declined", nil},
		{"modern-answered", peerTS, "deploy", "deployed to prod", "answered", map[string]any{"confirm": true}},
		{"legacy-refused", peerTS1, "confirm", "Client does not support form elicitation.", "", nil},
		{"legacy-answered", peerTS1, "confirm", "deployed to prod", "answered", map[string]any{"confirm": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := map[string]any{"command": "node", "args": []string{requirePeer(t, tc.peer)}, "auto_approve": true}
			if tc.answers != nil {
				cfg["elicitation"] = tc.answers
			}
			mcpFile := writeJSON(t, filepath.Join(dir, "mcp.json"), map[string]any{"mcp_servers": map[string]any{"peer": cfg}})
			sc, err := fakellm.ParseScript([]byte(fmt.Sprintf(`{"turns": [
			  {"tool_calls": [{"id": "c1", "name": "peer__%s", "arguments": {"env": "prod"}}]},
			  {"match": %q, "content": "done"}
			]}`, tc.tool, tc.match)))
			if err != nil {
				t.Fatal(err)
			}
			srv, err := fakellm.Start(sc, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Close() })
			evPath := filepath.Join(dir, "ev.jsonl")
			if got := runOdek(t, odek, dir, srv.URL(), "run", "-q", "--mcp-config", mcpFile, "--events-jsonl", evPath, "deploy"); strings.TrimSpace(got) != "done" {
				t.Errorf("odek run printed %q", got)
			}
			ev, _ := os.ReadFile(evPath)
			if tc.outcome == "" {
				if bytes.Contains(ev, []byte(`"type":"mcp_input"`)) {
					t.Errorf("an mcp_input event for a request never made:\n%s", head(string(ev), 3000))
				}
				return
			}
			var found bool
			for _, line := range bytes.Split(ev, []byte("\n")) {
				var e struct {
					Type, Tool string
					Data       struct{ Outcome, Method string }
				}
				if json.Unmarshal(line, &e) == nil && e.Type == "mcp_input" {
					found = e.Data.Outcome == tc.outcome && e.Tool == "peer__"+tc.tool
				}
			}
			if !found {
				t.Errorf("no mcp_input %s event for peer__%s:\n%s", tc.outcome, tc.tool, head(string(ev), 3000))
			}
		})
	}
}
