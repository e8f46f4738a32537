package cassette

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecorderFollowsNoPlantedFile: a sub-agent records into its parent's
// cassette directory, which Attach does not clean; a symlink, a FIFO or a
// file planted at one of its stream names (by a command of the run, the
// directory being in the workspace) is never written through or over:
// the recording fails, naming the stream, and the file a link leads to
// keeps its content. The parent's own streams are written as usual.
func TestRecorderFollowsNoPlantedFile(t *testing.T) {
	t.Parallel()
	const prefix = "sub-0123456789ab-1"
	for _, kind := range []string{"symlink", "file"} {
		for _, stream := range []string{llmFile(prefix), toolFile(prefix, "shell"), mcpFile(prefix, "srv")} {
			t.Run(kind+" "+stream, func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				dir, target := filepath.Join(root, "cas"), filepath.Join(root, "target")
				if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				if _, err := Create(dir, RecordOptions{}); err != nil {
					t.Fatal(err)
				}
				planted := filepath.Join(dir, stream)
				switch kind {
				case "symlink":
					if err := os.Symlink(target, planted); err != nil {
						t.Fatal(err)
					}
				default:
					if err := os.WriteFile(planted, []byte("planted\n"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				child, err := Attach(dir, prefix, RecordOptions{})
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case strings.HasPrefix(stream, "llm"):
					child.LLMTransport(nil).(*llmTap).record("", []byte(`{"model":"m"}`), LLMResponse{Status: 200, Body: json.RawMessage(`{}`)})
				case strings.HasPrefix(stream, "tool"):
					_ = child.RecordTool("shell", json.RawMessage(`{"command":"ls"}`), "out", nil)
				default:
					tap, err := child.MCPTap("srv")
					if err != nil {
						t.Fatal(err)
					}
					tap.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				}
				err = child.Close()
				if err == nil || !strings.Contains(err.Error(), stream) {
					t.Errorf("recording over a planted %s: %v, want an error naming %s", kind, err, stream)
				}
				if b, _ := os.ReadFile(target); string(b) != "keep\n" {
					t.Errorf("the link's target now holds %q", b)
				}
				if b, _ := os.ReadFile(planted); kind == "file" && string(b) != "planted\n" {
					t.Errorf("the planted file now holds %q", b)
				}
			})
		}
	}
}
