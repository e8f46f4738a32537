package mcpclient_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/testbin"
)

// The names docs/mcpclient-api.md requires of package mcpclient, each
// checked against what the document says of it, from outside the package
// as its users see it. A name the package drops or changes fails here
// before a user notices.

func TestAPIConstants(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"ProtocolVersion", mcpclient.ProtocolVersion, "2025-03-26"},
		{"MaxResponseBytesCeiling", mcpclient.MaxResponseBytesCeiling, 64 << 20},
		{"MaxTimeoutSeconds", mcpclient.MaxTimeoutSeconds, 3600},
		{"DefaultMaxResultChars", mcpclient.DefaultMaxResultChars, 200000},
		{"MaxResultCharsCap", mcpclient.MaxResultCharsCap, 1000000},
		{"SchemaToolResult", mcpclient.SchemaToolResult, artifact.SchemaToolResult},
		{"SchemaArtifactRef", mcpclient.SchemaArtifactRef, artifact.SchemaArtifactRef},
		{"SchemaEvent", mcpclient.SchemaEvent, "odek.event/v1"},
		{"ExtensionContractVersion", mcpclient.ExtensionContractVersion, "odek-extension/v1"},
		{"DefaultTimeout", mcpclient.DefaultTimeout, 30 * time.Second},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, the spec says %v", c.name, c.got, c.want)
		}
	}
}

// fixtureServer is mcpclient's reference server (the same program the
// package's own tests build).
func fixtureServer(t *testing.T) string {
	t.Helper()
	bin, err := testbin.Program("artifact_server", nil, "build", "-o", "{out}", "./internal/mcpclient/testdata/artifact_server.go")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// New starts the server; Discover lists its tools (ToolDef with the
// spec's JSON names); CallTool returns a tool's text; Name, ArtifactRoots
// (a copy) and Warnings (a clamped setting) report the configuration;
// Close can be called twice.
func TestAPIClient(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := mcpclient.ServerConfig{Command: fixtureServer(t), Args: []string{"-root", root}, Env: map[string]string{"LOG_LEVEL": "info"},
		TimeoutSeconds: mcpclient.MaxTimeoutSeconds + 1, MaxResponseBytes: 1 << 20, MaxResultChars: 1000,
		ArtifactRoots: []string{root}, AutoApprove: true}
	c, err := mcpclient.New("fx", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Name() != "fx" {
		t.Errorf("Name = %q", c.Name())
	}
	roots := c.ArtifactRoots()
	if len(roots) != 1 || roots[0] != root {
		t.Errorf("ArtifactRoots = %q", roots)
	}
	roots[0] = "/elsewhere"
	if c.ArtifactRoots()[0] != root {
		t.Error("ArtifactRoots hands out the client's own slice")
	}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], "timeout_seconds") || !strings.Contains(w[0], "clamped") {
		t.Errorf("Warnings = %q, want the clamped timeout_seconds", w)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := c.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var echo *mcpclient.ToolDef
	for i := range tools {
		if tools[i].Name == "echo" {
			echo = &tools[i]
		}
	}
	if echo == nil {
		t.Fatalf("no echo among %d tools", len(tools))
	}
	b, _ := json.Marshal(echo)
	for _, key := range []string{`"name":"echo"`, `"description":`, `"inputSchema":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("ToolDef JSON %s lacks %s", b, key)
		}
	}
	out, err := c.CallTool(ctx, "echo", `{"text":"hello"}`)
	if err != nil || !strings.Contains(out, "hello") {
		t.Errorf("CallTool = %q, %v", out, err)
	}
	a := &mcpclient.ToolAdapter{Client: c, ToolName: "echo", Desc: "Echo the arguments.", ParamSchema: json.RawMessage(`{"type":"object"}`)}
	if a.Name() != "fx__echo" || a.Description() != "Echo the arguments." || string(a.Schema()) != `{"type":"object"}` {
		t.Errorf("ToolAdapter: %q %q %s", a.Name(), a.Description(), a.Schema())
	}
	if out, err := a.Call(ctx, json.RawMessage(`{"text":"via adapter"}`)); err != nil || !strings.Contains(out, "via adapter") {
		t.Errorf("ToolAdapter.Call = %q, %v", out, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// No configuration raises the response cap above MaxResponseBytesCeiling.
func TestAPIResponseCeiling(t *testing.T) {
	t.Parallel()
	_, err := mcpclient.New("fx", mcpclient.ServerConfig{Command: "true", MaxResponseBytes: mcpclient.MaxResponseBytesCeiling + 1})
	if err == nil || !strings.Contains(err.Error(), "ceiling") {
		t.Fatalf("New with max_response_bytes over the ceiling: %v", err)
	}
}
