package runview

import (
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// TestFallbackWarning: a refused response_format keeps its own wording (the
// schema still holds); other fields take the client's.
func TestFallbackWarning(t *testing.T) {
	if got := FallbackWarning(llm.Fallback{Field: llm.FieldResponseFormat, Status: 400}); got != responseFormatWarning {
		t.Errorf("response_format: %q", got)
	}
	got := FallbackWarning(llm.Fallback{Field: llm.FieldTools, Model: "gemma3:4b", Status: 400,
		Message: "registry.ollama.ai/library/gemma3:4b does not support tools"})
	if !strings.Contains(got, `model "gemma3:4b" cannot use tools`) || !strings.Contains(got, "does not support tools") {
		t.Errorf("tools: %q", got)
	}
}
