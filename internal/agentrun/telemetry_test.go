package agentrun

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/telemetry"
)

// answering is an Asker that answers at once.
type answering policy.Answer

func (a answering) Ask(context.Context, policy.Question) (policy.Answer, error) {
	return policy.Answer(a), nil
}

// A wait for the operator's answer is an await_approval span under the
// call's execute_tool, with the answer. The collector here keeps the raw
// OTLP bodies: the names and the parent's id are in them as bytes.
func TestApprovalWaitIsASpan(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var bodies bytes.Buffer
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.Copy(&bodies, r.Body)
	}))
	defer srv.Close()
	env := map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/v1/traces"}
	tel, warn := telemetry.Setup(telemetry.Options{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if tel == nil || len(warn) > 0 {
		t.Fatalf("Setup: %v %v", tel, warn)
	}
	ctx, tool := tel.StartTool(context.Background(), telemetry.ToolInfo{Name: "shell", CallID: "c1"})
	a, err := tracedAsker{answering(policy.AnswerTrustClass), tel}.Ask(ctx, policy.Question{Tool: "shell", Class: risk.CodeExecution})
	if a != policy.AnswerTrustClass || err != nil {
		t.Fatalf("Ask: %v %v, want the asker's answer", a, err)
	}
	_, toolID := tool.IDs()
	tool.EndTool("", nil)
	if w := tel.Shutdown(context.Background()); len(w) > 0 {
		t.Fatal(w)
	}
	id, _ := hex.DecodeString(toolID)
	mu.Lock()
	defer mu.Unlock()
	b := bodies.Bytes()
	for _, want := range [][]byte{[]byte("await_approval shell"), []byte("odek.approval.answer"), []byte("trust"),
		[]byte(risk.CodeExecution.String()), append([]byte{0x22, 8}, id...)} { // Span.parent_span_id = the tool's
		if !bytes.Contains(b, want) {
			t.Errorf("the export lacks %q", want)
		}
	}
}

func TestGenAIProvider(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://api.openai.com/v1":                               "openai",
		"https://API.Anthropic.com/v1/":                           "anthropic",
		"https://myres.openai.azure.com/openai/v1":                "azure.ai.openai",
		"https://generativelanguage.googleapis.com/v1beta/openai": "gcp.gemini",
		"https://openrouter.ai/api/v1":                            "",
		"http://127.0.0.1:8080/v1":                                "",
		"https://notopenai.com/v1":                                "",
		"://bad":                                                  "",
	} {
		if got := genAIProvider(in); got != want {
			t.Errorf("genAIProvider(%q) = %q, want %q", in, got, want)
		}
	}
}
