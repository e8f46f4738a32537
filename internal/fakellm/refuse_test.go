package fakellm

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRefusalErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ refuse, want string }{
		{`{"param": "", "body": "x", "source": "s"}`, `param "" cannot be refused`},
		{`{"param": "model", "body": "x", "source": "s"}`, `param "model" cannot be refused`},
		{`{"param": "tools", "source": "s"}`, "body is empty"},
		{`{"param": "tools", "body": "x"}`, "source is empty"},
		{`{"param": "tools", "body": "x", "source": "s", "status": 200}`, "status 200 is not an error status"},
		{`{"param": "tools", "body": "x", "source": "s", "extra": 1}`, "unknown field"},
	} {
		_, err := ParseScript([]byte(`{"refuse": [` + tc.refuse + `], "turns": [{"content": "ok"}]}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.refuse, err, tc.want)
		}
	}
}

// TestRefusalsFixture: every provider body in testdata/refusals.json is a
// valid refusal, names its source, and is JSON once filled in.
func TestRefusalsFixture(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "refusals.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rs map[string]Refusal
	if err := json.Unmarshal(b, &rs); err != nil {
		t.Fatal(err)
	}
	for name, r := range rs {
		if err := r.validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		_, body := refusalFor([]byte(`{"model":"m\"1","tools":[{}],"reasoning_effort":"low"}`), []Refusal{{Param: r.Param, Body: r.Body}})
		if !json.Valid([]byte(body)) {
			t.Errorf("%s: filled body is not JSON: %s", name, body)
		}
	}
}

// TestRefuseServes: a request carrying the field (with a listed value) gets
// the body, filled in, and consumes no turn; others are answered.
func TestRefuseServes(t *testing.T) {
	t.Parallel()
	s := &Script{Refuse: []Refusal{{Param: "reasoning_effort", Values: []string{"low"}, Status: 500,
		Body: `{"error":{"message":"{model}: think value \"{value}\""}}`, Source: "test"}},
		Turns: []Turn{{Content: "ok"}}}
	srv, err := Start(s, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	post := func(body string) (int, string) {
		resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	msgs := `"messages":[{"role":"user","content":"hi"}]`
	if code, body := post(`{"model":"q3",` + msgs + `,"reasoning_effort":"low"}`); code != 500 || body != `{"error":{"message":"q3: think value \"low\""}}` {
		t.Errorf("refused: %d %s", code, body)
	}
	if code, body := post(`{"model":"q3",` + msgs + `,"reasoning_effort":"none"}`); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Errorf("value not listed: %d %s", code, body)
	}
	if n := srv.TurnsUsed(); n != 1 {
		t.Errorf("turns used = %d, want 1 (a refusal consumes none)", n)
	}
}
