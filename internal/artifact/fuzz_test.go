package artifact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseEnvelope(f *testing.F) {
	f.Add(`{"schema":"odek.tool-result/v1","text":"hi","artifacts":[{"schema":"odek.artifact-ref/v1","id":"a","uri":"file:///x","media_type":"t","size_bytes":3}]}`)
	f.Add("\uFEFF {\"schema\":\"odek.tool-result/v1\",\"text\":5}")
	f.Add(`{"schema":1}`)
	f.Add(`{"schema":"odek.tool-result/v1","Schema":"x","text":"hi"}`)
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		env, ok, err := ParseEnvelope(s)
		if !ok && (env != nil || err != nil) {
			t.Fatalf("plain text returned env=%v err=%v", env, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "malformed odek.tool-result/v1 envelope: ") {
			t.Fatalf("error text %q", err)
		}
		if ok && err == nil && len(env.Artifacts) > MaxRefs {
			t.Fatalf("%d refs accepted", len(env.Artifacts))
		}
	})
}

func FuzzValidateURI(f *testing.F) {
	root := f.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("x"), 0o600); err != nil {
		f.Fatal(err)
	}
	resolvedRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"file://" + root + "/a.txt", "file://" + root + "/../a.txt", "file://h/x", "file:a", "file://" + root + "/a%2Etxt", "file://" + root + "/a.txt?#", "http://x/y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		ref := okRef(uri)
		p, perr := uriPath(ref)
		if perr == nil && (!filepath.IsAbs(p) || filepath.Clean(p) != p) {
			t.Fatalf("uriPath(%q) = %q: not absolute and clean", uri, p)
		}
		v, err := Validate(ref, []string{root})
		if err == nil {
			// a.txt is the only file in the root.
			if perr != nil || v.Path != filepath.Join(resolvedRoot, "a.txt") {
				t.Fatalf("Validate(%q) accepted %q, not a.txt in %q", uri, v.Path, resolvedRoot)
			}
			return
		}
		if strings.Contains(err.Error(), root) {
			t.Fatalf("error leaks the path: %v", err)
		}
	})
}

func FuzzProcess(f *testing.F) {
	f.Add("hello", "- artifact \"x\"", 50)
	f.Add(`{"schema":"odek.tool-result/v1","text":"- artifact \"x\"\r\n- artifact y"}`, "tail\u2028", 10)
	f.Add(strings.Repeat("世", 400), "", 300)
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		limit = 1 + (limit&0x7fffffff)%4000
		p, err := Process([]string{a, b}, ProcessOptions{Server: "s", Tool: "t", Roots: []string{"/nonexistent-root"}, MaxChars: limit})
		if err != nil {
			return
		}
		if n := utf8.RuneCountInString(p.Text); n > limit {
			t.Fatalf("%d runes > limit %d", n, limit)
		}
		if !utf8.ValidString(p.Text) {
			t.Fatalf("invalid UTF-8 in %q", p.Text)
		}
		if p.ArtifactCount != 0 || len(p.Artifacts) != 0 {
			t.Fatalf("metadata line forged: %q", p.Text)
		}
		for _, line := range strings.Split(p.Text, "\n") {
			if strings.HasPrefix(line, mimicPrefix) {
				t.Fatalf("unindented mimic line %q", line)
			}
		}
		if p.Truncated != (p.Full != "") || (p.Truncated && p.ObservedChars <= limit) {
			t.Fatalf("truncation bookkeeping: %+v", p)
		}
	})
}

func BenchmarkProcessPlain10MiB(b *testing.B) {
	line := strings.Repeat("log line with some text ", 4) + "\n"
	text := strings.Repeat(line, (10<<20)/len(line))
	o := ProcessOptions{Server: "s", Tool: "t", MaxChars: DefaultMaxChars}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Process([]string{text}, o)
		if err != nil || !p.Truncated {
			b.Fatal(err)
		}
	}
}

// A tool result that is a large JSON object but no envelope (the common
// shape of a structured MCP result): detecting that must stay one pass.
func BenchmarkProcessJSON10MiB(b *testing.B) {
	row := `{"id": 12345, "name": "row name", "tags": ["a", "b"], "ok": true},`
	text := `{"schema": "report/v2", "rows": [` + strings.Repeat(row, (10<<20)/len(row)) + `{}]}`
	o := ProcessOptions{Server: "s", Tool: "t", MaxChars: DefaultMaxChars}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Process([]string{text}, o)
		if err != nil || !p.Truncated {
			b.Fatal(err)
		}
	}
}

// FuzzProbeSchema holds probeSchema's skim to encoding/json's own reading:
// the same validity, the same count of schema keys, the same verdict for
// the key json keeps (the last) and for any of them.
func FuzzProbeSchema(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"schema":"odek.tool-result/v1"}`, `{"a":{"schema":"odek.tool-result/v1"},"Schema":1}`,
		`{"schema":"odek.tool-result/v1","SCHEMA":"x"}`, `{"s\u0063hema":"odek.tool-result\/v1"}`,
		`{"x":"}\"{","schema":["odek.tool-result/v1"],"y":[1,{"z":"]"}]}`, `{"schema" : "odek.tool-result/v1" , "k": -1.5e3 }`,
		`{"a":1,}`, `{"a" 1}`, `{"a":1} x`, `{"ſchema":"odek.tool-result/v1"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !strings.HasPrefix(body, "{") {
			return
		}
		got, err := probeSchema(body)
		want, wantOK := tokenProbe(body)
		if (err == nil) != wantOK {
			t.Fatalf("probeSchema(%q) error %v, reference valid %v", body, err, wantOK)
		}
		if err == nil && got != want {
			t.Fatalf("probeSchema(%q) = %+v, reference %+v", body, got, want)
		}
	})
}

// tokenProbe is probeSchema written the slow, obvious way: a decoder
// reading each top-level member whole.
func tokenProbe(body string) (p schemaProbe, ok bool) {
	if !json.Valid([]byte(body)) {
		return p, false
	}
	dec := json.NewDecoder(strings.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return p, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return p, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return p, false
		}
		if key, _ := tok.(string); strings.EqualFold(key, "schema") {
			var s string
			p.fields++
			p.isEnv = json.Unmarshal(raw, &s) == nil && s == SchemaToolResult
			p.anyEnv = p.anyEnv || p.isEnv
		}
	}
	return p, true
}
