package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// TestTranscript: transcript_path names a JSONL file holding the
// conversation so far, redacted, each message once (a reply whose calls
// run is written ahead and not again); Close removes it.
func TestTranscript(t *testing.T) {
	t.Parallel()
	g := newRig(t, `{"PreToolUse": [{"hooks": [{"type": "command", "command": "cat > event.json"}]}]}`, "",
		func(o *Options) {
			o.Redact = func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") }
		})
	reply := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Function: llm.FunctionCall{Name: "shell", Arguments: `{"command":"echo hunter2"}`}}}}
	hist := []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "the password is hunter2"}}
	ctx := context.Background()
	in := shellCall("echo hunter2")
	in.History, in.Pending = hist, &reply
	g.r.Fire(ctx, in)
	g.r.Fire(ctx, in) // a second call of the same reply
	hist = append(hist, reply, llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Content: "ok"}, llm.Message{Role: llm.RoleAssistant, Content: "done"})
	in.History, in.Pending = hist, nil
	g.r.Fire(ctx, in)
	var ev struct {
		TranscriptPath string          `json:"transcript_path"`
		ToolInput      json.RawMessage `json:"tool_input"`
	}
	b, _ := os.ReadFile(filepath.Join(g.dir, "event.json"))
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(ev.ToolInput), "hunter2") {
		t.Errorf("tool_input not redacted: %s", ev.ToolInput)
	}
	data, err := os.ReadFile(ev.TranscriptPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	roles := []string{}
	for _, l := range lines {
		var m struct{ Role string }
		_ = json.Unmarshal([]byte(l), &m)
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,assistant" || strings.Contains(string(data), "hunter2") {
		t.Errorf("transcript:\n%s", data)
	}
	if fi, _ := os.Stat(ev.TranscriptPath); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	g.r.Close()
	if _, err := os.Stat(filepath.Dir(ev.TranscriptPath)); !os.IsNotExist(err) {
		t.Errorf("transcript dir left: %v", err)
	}
}
