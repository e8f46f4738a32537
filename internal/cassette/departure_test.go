package cassette

import (
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// credential is what a workspace file might hold that no redaction rule
// knows: no secret-looking name before it, no provider prefix.
const credential = "Zq8vN2xKp4LmR7tYw3Hs"

// Issue 34.12: a strict replay whose run read a workspace file that now
// holds a credential departs without printing it: the departure says where
// (field, byte, line) and how the values differ (lengths, hashes, an
// excerpt), with secret-shaped runs hidden whole, also where the excerpt
// would cut one.
func TestDepartureShowsNoSecret(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Kp4Lm", 8) // 40 bytes, begins inside the excerpt and ends past it
	tests := []struct {
		name, recorded, live string
		want                 []string
	}{
		{"a credential after the difference", "# staging\nhost = db.internal\n",
			"# staging\nhost = db.internal\ndb_pass = " + credential + "\nuser = app\n",
			[]string{"byte 29 (line 3)", "(29 bytes, sha256 ", "(71 bytes, sha256 ", `db_pass = [20 bytes hidden]\nuser = ap`}},
		{"a credential the excerpt would cut", "settings: none",
			"settings: see " + strings.Repeat("x", 20) + " " + long + " and more",
			[]string{"[40 bytes hidden]"}},
		{"a credential before the difference", "token " + credential + " expires in 1 hour",
			"token " + credential + " expires in 2 hours",
			[]string{`"token [20 bytes hidden] expires in 1 hour"`, `"token [20 bytes hidden] expires in 2 hours"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := departLLM(t, tt.recorded, tt.live)
			var d *DepartureError
			if !errors.As(err, &d) || d.Path != "messages[1].content" {
				t.Fatalf("departure = %v", err)
			}
			msg := err.Error()
			for _, secret := range []string{credential, long} {
				for n := 0; n+6 <= len(secret); n++ {
					if strings.Contains(msg, secret[n:n+6]) {
						t.Fatalf("the departure shows %q of a credential:\n%s", secret[n:n+6], msg)
					}
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the departure lacks %q:\n%s", w, msg)
				}
			}
		})
	}
}

// departLLM records one request whose tool result is recorded, replays it
// with live in its place, and returns the departure.
func departLLM(t *testing.T, recorded, live string) error {
	t.Helper()
	body := func(content string) string {
		b, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{
			map[string]any{"role": "user", "content": "read the config"},
			map[string]any{"role": "tool", "tool_call_id": "c1", "content": content}}})
		return string(b)
	}
	dir := filepath.Join(t.TempDir(), "cas")
	recordLLM(t, dir, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }, body(recorded))
	p, err := Open(dir, PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := p.LLMTransport()
	resp, err := (&http.Client{Transport: rt}).Post("http://replay.invalid", "application/json", strings.NewReader(body(live)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return p.Err()
}

// A value that is not a string (an object the cassette lacks) is shown as
// JSON, with secret-shaped runs hidden the same way.
func TestDepartureHidesSecretsInValues(t *testing.T) {
	t.Parallel()
	d, ok := firstDiff("", map[string]any{"a": "x"}, map[string]any{"a": "x", "b": map[string]any{"k": credential}})
	if !ok || d.path != "b" || d.want != "(absent)" || d.got != `{"k":"[20 bytes hidden]"}` {
		t.Fatalf("diff = %+v", d)
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{`Count the words of "five six"`, `Count the words of "five six"`},
		{"exit code: 1234567890", "exit code: 1234567890"}, // digits alone: a number
		{"/home/runner/work/project/src/main.go", "/home/runner/work/project/src/main.go"},
		{"go1.26 x86_64 sha256", "go1.26 x86_64 sha256"}, // short runs
		{"key hunter22 here", "key [8 bytes hidden] here"},
		{"internationalization-of-messages", "[32 bytes hidden]"},
		{"[REDACTED] <workdir>/x", "[REDACTED] <workdir>/x"},
	} {
		if got := excerpt(tt.in, 0, len(tt.in)); got != tt.want {
			t.Errorf("excerpt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Issue 34.14: a departure where the config shows (the system prompt, the
// model, the tools) says to pin the config; one in the conversation does
// not.
func TestConfigHint(t *testing.T) {
	t.Parallel()
	req := map[string]any{"messages": []any{map[string]any{"role": "system"}, map[string]any{"role": "user"}}}
	noSystem := map[string]any{"messages": []any{map[string]any{"role": "user"}}}
	for _, tt := range []struct {
		path string
		req  any
		want string
	}{
		{"messages[0].content", req, "the system prompt states the run's limits"},
		{"messages[0].content", noSystem, ""},
		{"messages[1].content", req, ""},
		{"model", req, "a request setting"},
		{"tools[2].function.name", req, "a request setting"},
		{"", req, ""},
	} {
		got := configHint(tt.path, tt.req)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) || tt.want != "" && !strings.Contains(got, "Pinning the config") {
			t.Errorf("configHint(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
