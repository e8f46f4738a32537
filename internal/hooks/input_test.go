package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A secret that straddles the 256 KiB cut of a tool result is masked whole:
// the result is redacted before it is cut, so no prefix of the secret, too
// short for the redactor to know, reaches the hook.
func TestResponseRedactedBeforeTheCut(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-api-key"
	g := newRig(t, `{"PostToolUse": [{"hooks": [{"type": "command", "command": "cat > post.json"}]}]}`, "",
		func(o *Options) {
			o.Redact = func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
		})
	resp := strings.Repeat("z", maxResponseBytes-7) + secret + "\n"
	fireWithin(t, g, context.Background(), Input{Event: PostToolUse, Tool: "shell", CallID: "c1",
		Args: json.RawMessage(`{"command":"cat .env"}`), Response: resp}, 60*time.Second)
	b, err := os.ReadFile(filepath.Join(g.dir, "post.json"))
	if err != nil {
		t.Fatal(err)
	}
	var post struct {
		ToolResponse string `json:"tool_response"`
	}
	if err := json.Unmarshal(b, &post); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(post.ToolResponse, "hunter2") {
		t.Errorf("the hook got part of the secret: …%q", post.ToolResponse[len(post.ToolResponse)-20:])
	}
	if len(post.ToolResponse) > maxResponseBytes || !strings.HasPrefix(post.ToolResponse, "zzz") {
		t.Errorf("tool_response: %d bytes", len(post.ToolResponse))
	}
}
