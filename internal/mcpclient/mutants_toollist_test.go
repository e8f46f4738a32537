package mcpclient

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// listingServer is a modern server, in memory, whose tools/list is one
// page holding tools as given.
func listingServer(tools ...map[string]any) func(*memServer) {
	return func(end *memServer) {
		serveRequests(end, func(b []byte, send func(map[string]any)) {
			var m taskMsg
			if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
				return
			}
			if !answerDiscovery(m.ID, m.Method, send, tools...) {
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			}
		})
	}
}

// schemaOf is an object schema of exactly n bytes (n >= 40), as the server
// sends it: {"type":"object","description":"xxx…"}.
func schemaOf(n int) json.RawMessage {
	const frame = `{"type":"object","description":""}`
	return json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", n-len(frame)) + `"}`)
}

// A tool's title is held to tool_description_bytes like its description,
// and its outputSchema to tool_schema_bytes like its inputSchema: each met
// exactly passes, one byte over rejects the server, naming the tool, the
// bound and the size of what was over it.
func TestDiscoveryBoundsTitleAndOutputSchema(t *testing.T) {
	t.Parallel()
	const descBytes, schemaBytes = 100, 200
	lim := discoveryLimits{DescriptionBytes: descBytes, SchemaBytes: schemaBytes}
	in := json.RawMessage(`{"type":"object"}`)
	tests := []struct {
		name string
		tool map[string]any
		want string // "" = accepted
	}{
		{"title at the bound", map[string]any{"name": "t", "title": strings.Repeat("T", descBytes), "description": "d", "inputSchema": in}, ""},
		{"title one over", map[string]any{"name": "t", "title": strings.Repeat("T", descBytes+1), "description": "d", "inputSchema": in},
			`tool "t" exceeds the discovery bound tool_description_bytes=100 (observed 101)`},
		{"outputSchema at the bound", map[string]any{"name": "t", "inputSchema": in, "outputSchema": schemaOf(schemaBytes)}, ""},
		{"outputSchema one over", map[string]any{"name": "t", "inputSchema": in, "outputSchema": schemaOf(schemaBytes + 1)},
			`tool "t" exceeds the discovery bound tool_schema_bytes=200 (observed 201)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, tools, err := connectInMemory(t, "ls", ServerConfig{}, Options{discovery: lim}, listingServer(tt.tool))
			if tt.want == "" {
				if err != nil || len(tools) != 1 {
					t.Fatalf("err = %v, %d tools; want the tool accepted", err, len(tools))
				}
				return
			}
			var le *discoveryLimitError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tt.want) || tools != nil {
				t.Fatalf("err = %v, %d tools; want %s", err, len(tools), tt.want)
			}
		})
	}
}
