package cassette

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cassette records the wire a request spoke, replays it on that wire
// only, and a lenient replay leaves the Responses wire's tool results out of
// the comparison as it does chat's.
func TestLLMCassetteRecordsTheWire(t *testing.T) {
	t.Parallel()
	const sse = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, sse)
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "cas")
	rec, err := Create(dir, RecordOptions{Redact: mask})
	if err != nil {
		t.Fatal(err)
	}
	reqBody := `{"model":"m","input":[{"type":"function_call_output","call_id":"c1","output":"recorded result"}]}`
	c := &http.Client{Transport: rec.LLMTransport(http.DefaultTransport)}
	resp, err := c.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(reqBody))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "llm.jsonl"))
	if err != nil || !strings.Contains(string(raw), `"wire":"responses"`) {
		t.Fatalf("llm.jsonl: %s (%v)", raw, err)
	}

	cases := []struct {
		name, path, body string
		lenient          bool
		departs          string
	}{
		{"same wire", "/v1/responses", reqBody, false, ""},
		{"other wire", "/v1/chat/completions", reqBody, false, "recorded on the responses wire and this run speaks chat"},
		{"lenient, other result", "/v1/responses", strings.Replace(reqBody, "recorded result", "live result", 1), true, ""},
		{"strict, other result", "/v1/responses", strings.Replace(reqBody, "recorded result", "live result", 1), false, "input[0].output"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var departed error
			p, err := Open(dir, PlayOptions{Lenient: tc.lenient, Redact: mask, OnDepart: func(err error) { departed = err }})
			if err != nil {
				t.Fatal(err)
			}
			rt, _ := p.LLMTransport()
			resp, err := (&http.Client{Transport: rt}).Post("http://replay.invalid"+tc.path, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if tc.departs == "" {
				if departed != nil || string(body) != sse {
					t.Fatalf("departed %v, body %q", departed, body)
				}
				return
			}
			if departed == nil || !strings.Contains(departed.Error(), tc.departs) {
				t.Fatalf("departed %v, want %q", departed, tc.departs)
			}
		})
	}
}
