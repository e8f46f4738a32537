package acp

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"
)

// FuzzParse feeds untrusted bytes to what the agent parses itself: a
// prompt's content (the client's), the client's MCP servers, and a tool
// call's arguments (the model's). None may panic; a call's title stays
// one bounded line and its locations absolute.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"text","text":"hi"},{"type":"resource","resource":{"uri":"file:///a","text":"x"}}]}`), "read_file")
	f.Add([]byte(`{"cwd":"/w","mcpServers":[{"name":"a","command":"x","args":[],"env":[]},{"type":"http","name":"b","url":"u","headers":[{"name":"Authorization","value":"Bearer t"}]}]}`), "shell")
	f.Add([]byte(`{"path":"../../etc/passwd","content":"x","old":"a","new":"b","command":"ls\nrm"}`), "patch")
	f.Fuzz(func(t *testing.T, data []byte, tool string) {
		var p sdk.PromptRequest
		if json.Unmarshal(data, &p) == nil {
			_, _ = promptText(p.Prompt)
		}
		var n sdk.NewSessionRequest
		if json.Unmarshal(data, &n) == nil {
			_, _, _ = convertServers(n.McpServers)
		}
		v := viewCall("/w", tool, string(data))
		if utf8.RuneCountInString(v.title) > titleRunes+1 { // OneLine marks a cut with "…"
			t.Errorf("title of %d runes", utf8.RuneCountInString(v.title))
		}
		for _, l := range v.locations {
			if !filepath.IsAbs(l.Path) {
				t.Errorf("location %q is not absolute", l.Path)
			}
		}
	})
}
