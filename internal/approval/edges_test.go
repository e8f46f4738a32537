package approval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/odek-run/odek/internal/mcpclient"
)

func TestInsideDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	for _, tt := range []struct {
		p, rel string
		ok     bool
	}{
		{"srv.py", "srv.py", true},
		{"./tools/x.js", filepath.Join("tools", "x.js"), true},
		{filepath.Join(dir, "a"), "a", true},
		{"..foo", "..foo", true}, // a file whose name starts with two dots
		{"", "", false},
		{"a\x00b", "", false},
		{".", "", false}, // the directory itself is not a file in it
		{dir, "", false},
		{"..", "", false},
		{"../x", "", false},
		{"sub/../../x", "", false},
		{"/etc/passwd", "", false},
	} {
		rel, ok := insideDir(dir, tt.p)
		if rel != tt.rel || ok != tt.ok {
			t.Errorf("insideDir(%q) = %q, %v; want %q, %v", tt.p, rel, ok, tt.rel, tt.ok)
		}
	}
}

func TestScreenToolSchemaSizeBoundary(t *testing.T) {
	schema := func(n int) json.RawMessage {
		pad := strings.Repeat("x", n-len(`{"description":""}`))
		return json.RawMessage(`{"description":"` + pad + `"}`)
	}
	if _, warns, skip := screenTool("s", mcpclient.ToolDef{Name: "t", InputSchema: schema(MaxSchemaBytes)}); skip {
		t.Errorf("a schema of exactly %d bytes was skipped: %q", MaxSchemaBytes, warns)
	}
	if _, warns, skip := screenTool("s", mcpclient.ToolDef{Name: "t", InputSchema: schema(MaxSchemaBytes + 1)}); !skip || len(warns) != 1 ||
		!strings.Contains(warns[0], "over the 262144-byte limit") {
		t.Errorf("one byte over: skip %v, warnings %q", skip, warns)
	}
}

// A missing or null schema is approved as the object schema the model is
// given, so it hashes and measures as that.
func TestMissingSchemaIsTheObjectSchema(t *testing.T) {
	object := SchemaSHA256(json.RawMessage(`{"type":"object"}`))
	for _, s := range []string{"", "  ", "null", " null "} {
		if got := SchemaSHA256(json.RawMessage(s)); got != object {
			t.Errorf("SchemaSHA256(%q) differs from the object schema's", s)
		}
	}
	if SchemaSHA256(json.RawMessage(`{"type":"string"}`)) == object {
		t.Error("a different schema hashes alike")
	}
	if schemaSize(nil) != len(`{"type":"object"}`) || schemaSize([]byte(`{"a":1}`)) != 7 {
		t.Errorf("schemaSize: %d, %d", schemaSize(nil), schemaSize([]byte(`{"a":1}`)))
	}
}

func TestConfirmAnswers(t *testing.T) {
	diskErr := errors.New("read failed")
	for _, tt := range []struct {
		name    string
		in      string
		readErr error
		server  bool
		want    Answer
		wantErr error
	}{
		{"yes", "y\n", nil, false, Approve, nil},
		{"YES", " YES \n", nil, false, Approve, nil},
		{"yes without a newline at the end", "y", nil, false, Approve, nil},
		{"all where offered", "a\n", nil, true, ApproveServer, nil},
		{"all where not offered", "all\n", nil, false, Deny, nil},
		{"empty line", "\n", nil, false, Deny, nil},
		{"end of input", "", nil, false, Deny, nil},
		{"anything else", "sure\n", nil, false, Deny, nil},
		{"read error", "", diskErr, false, Deny, diskErr},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var in = strings.NewReader(tt.in)
			var out strings.Builder
			p := NewPrompter(in, &out)
			if tt.readErr != nil {
				p = NewPrompter(iotest.ErrReader(tt.readErr), &out)
			}
			got, err := p.Confirm(context.Background(), Question{Text: "q\n", AllowServer: tt.server})
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Fatalf("Confirm = %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestShortHashAndWrap(t *testing.T) {
	if got := shortHash("0123456789abcdef"); got != "0123456789abcdef" {
		t.Errorf("16 hex: %q", got)
	}
	if got := shortHash("0123456789abcdef0"); got != "0123456789abcdef…" {
		t.Errorf("17 hex: %q", got)
	}
	exact := strings.Repeat("w", 20)
	if got := wrapLine(exact, 20); got != exact+"\n" {
		t.Errorf("a line of exactly the width was wrapped: %q", got)
	}
	if got := wrapLine(exact+"z", 20); got != exact+"\n      z\n" {
		t.Errorf("one over: %q", got)
	}
}

// Values are shown bare only when made of letters, digits and common path
// punctuation; everything else is Go-quoted, at every edge of those ranges.
func TestPlainOrQuoted(t *testing.T) {
	for _, s := range []string{"a", "z", "A", "Z", "0", "9", "./srv.py", "user@host:/x", "a+b=c,d~e%f_g-h"} {
		if got := plainOrQuoted(s); got != s {
			t.Errorf("plainOrQuoted(%q) = %s, want it bare", s, got)
		}
	}
	for _, s := range []string{"", "`", "{", "[", "\\", "a b", `"`, "'", "é", "\x1b[2J", "a;b", "$x", "*"} {
		if got := plainOrQuoted(s); got == s || !strings.HasPrefix(got, `"`) {
			t.Errorf("plainOrQuoted(%q) = %s, want it quoted", s, got)
		}
	}
}

// approvals list shows grants by server, kind and tool, then key; keys
// without a record come last.
func TestEntriesOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approvals.json")
	// Grants in the first format odek wrote (true: no record) sort last, by key.
	if err := os.WriteFile(path, []byte(`{"old-b": true, "old-a": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	for key, r := range map[string]Record{
		"k1": {Kind: "tool", Server: "zeta", Tool: "a"},
		"k2": {Kind: "tool", Server: "alpha", Tool: "b"},
		"k3": {Kind: "tool", Server: "alpha", Tool: "a"},
		"k0": {Kind: "spawn", Server: "alpha"},
	} {
		if err := s.Grant(key, r); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, e := range s.Entries() {
		got = append(got, e.Key)
	}
	if strings.Join(got, ",") != "k0,k3,k2,k1,old-a,old-b" {
		t.Errorf("order %v, want spawn alpha, tool alpha a, tool alpha b, tool zeta, then the bare keys", got)
	}
}
