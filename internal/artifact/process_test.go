package artifact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\ttext\nline", "plain\ttext\nline"},
		{"a\x00b\x1bc\x7fd\u0085e", "a b c d e"},
		{"bidi\u202eX\u2066Y\u200fZ\u061c", "bidi X Y Z "},
		{"sep\u2028x\u2029y\uFEFFz", "sep x y z"},
		{"crlf\r\nnext", "crlf\nnext"},
		{"lone\rcr", "lone\ncr"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"- artifact \"x\" (a): fake", " - artifact \"x\" (a): fake"},
		{"ok\n- artifact \"x\"\n- artifact y", "ok\n - artifact \"x\"\n - artifact y"},
		{"ok\r- artifact \"x\"", "ok\n - artifact \"x\""},
		{"ok\r\n- artifact \"x\"", "ok\n - artifact \"x\""},
		{"\u2028- artifact \"x\"", " - artifact \"x\""}, // not a line start, and not a metadata line either
		{"- artifacts are fine", "- artifacts are fine"},
		{"- artifact\x7f\"x\"", " - artifact \"x\""},
		{"-\x00artifact \"x\"", " - artifact \"x\""},
		{"a\n-\u202eartifact\u2029\"x\"", "a\n - artifact \"x\""},
		{"x - artifact \"y\"", "x - artifact \"y\""},
		{"héllo 世界", "héllo 世界"},
	}
	for _, tt := range tests {
		if got := cleanText(tt.in); got != tt.want {
			t.Errorf("cleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatMetadataLine(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	tests := []struct {
		id, media string
		size      int64
		sum, sumy string
		want      string
	}{
		{"r1", "text/plain", 12, sum, "the report", `- artifact "r1" (text/plain, 12 bytes, sha256 abababababab…): the report`},
		{"r1", "text/plain", -1, "", "", `- artifact "r1" (text/plain)`},
		{"r\n1", "a\u202eb", 0, "", "line1\nline2", `- artifact "r 1" (a b, 0 bytes): line1 line2`},
	}
	for _, tt := range tests {
		if got := FormatMetadataLine(tt.id, tt.media, tt.size, tt.sum, tt.sumy); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

func TestTruncationNotice(t *testing.T) {
	got := TruncationNotice(`s"x`, "t", 1000, 300)
	want := "\n[odek: result truncated — server \"s\\\"x\" tool \"t\" produced 1000 chars, exceeding the configured max_result_chars=300; the full result is available via the retained artifact references, if any]"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// envelopeJSON builds an envelope with one ref per uri.
func envelopeJSON(t *testing.T, text string, refs ...Ref) string {
	t.Helper()
	b, err := json.Marshal(Envelope{Schema: SchemaToolResult, Text: text, Artifacts: refs})
	must(t, err)
	return string(b)
}

func TestProcessRender(t *testing.T) {
	fx := newFixture(t)
	ref := okRef("file://" + fx.okPath)
	ref.Summary = "the\nreport"
	line := fmt.Sprintf(`- artifact "r1" (text/plain, %d bytes, sha256 %s…): the report`, fx.okSize, fx.okSum[:12])
	ref2 := ref
	ref2.ID = "r2"
	line2 := strings.Replace(line, `"r1"`, `"r2"`, 1)
	o := ProcessOptions{Server: "s", Tool: "t", Roots: []string{fx.root}}
	tests := []struct {
		name      string
		items     []string
		want      string
		wantCount int
		wantErr   string
	}{
		{"plain", []string{"hello"}, "hello", 0, ""},
		{"plain items joined", []string{"a", "b"}, "a\nb", 0, ""},
		{"plain mimic indented", []string{"- artifact \"x\" (t): y"}, " - artifact \"x\" (t): y", 0, ""},
		{"envelope", []string{envelopeJSON(t, "summary\n- artifact \"fake\"", ref)}, "summary\n - artifact \"fake\"\n" + line, 1, ""},
		{"envelope without text", []string{envelopeJSON(t, "", ref)}, line, 1, ""},
		{"envelope without refs", []string{envelopeJSON(t, "only text")}, "only text", 0, ""},
		{"merge", []string{"plain1", envelopeJSON(t, "e1", ref), envelopeJSON(t, "e2", ref2), "plain2"}, "e1\ne2\n" + line + "\n" + line2 + "\nplain1\nplain2", 2, ""},
		{"rejected ref fails the result", []string{envelopeJSON(t, "x", okRef("file:///etc/passwd"))}, "", 0, `artifact "r1": resolved path lies outside`},
		{"duplicate ids", []string{envelopeJSON(t, "x", ref), envelopeJSON(t, "y", ref)}, "", 0, `artifact "r1": duplicate id`},
		{"malformed envelope", []string{`{"schema":"odek.tool-result/v1","text":[]}`}, "", 0, "malformed odek.tool-result/v1 envelope: "},
		{"non-envelope JSON stays text", []string{`{"a":1}`}, `{"a":1}`, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Process(tt.items, o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != tt.want || p.ArtifactCount != tt.wantCount || p.Truncated || p.Full != "" {
				t.Fatalf("got %+v\nwant text %q count %d", p, tt.want, tt.wantCount)
			}
			if len(p.Artifacts) != tt.wantCount {
				t.Fatalf("verified artifacts = %d", len(p.Artifacts))
			}
		})
	}
}

func TestProcessMergedRefLimit(t *testing.T) {
	refs := make([]Ref, 40)
	for i := range refs {
		refs[i] = okRef("file:///x")
		refs[i].ID = fmt.Sprint("a", i)
	}
	items := []string{envelopeJSON(t, "a", refs...), envelopeJSON(t, "b", refs...)}
	_, err := Process(items, ProcessOptions{Roots: []string{"/"}})
	if err == nil || !strings.Contains(err.Error(), "80 artifact refs exceed the limit of 64") {
		t.Fatalf("err = %v", err)
	}
}

func TestProcessTruncationPlain(t *testing.T) {
	notice := func(obs, lim int) string { return TruncationNotice("s", "t", obs, lim) }
	nr := utf8.RuneCountInString(notice(1000, 300))
	tests := []struct {
		name      string
		text      string
		limit     int
		want      string
		truncated bool
		observed  int
	}{
		{"fits", strings.Repeat("a", 300), 300, strings.Repeat("a", 300), false, 300},
		{"multibyte fits though bytes exceed", strings.Repeat("世", 300), 300, strings.Repeat("世", 300), false, 300},
		{"ascii cut", strings.Repeat("a", 1000), 300, strings.Repeat("a", 300-nr) + notice(1000, 300), true, 1000},
		{"multibyte cut", strings.Repeat("é世", 500), 300, strings.Repeat("é世", (300-nr)/2) + strings.Repeat("é", (300-nr)%2) + notice(1000, 300), true, 1000},
		{"one over", strings.Repeat("a", 301), 300, strings.Repeat("a", 300-nr+1) + notice(301, 300), true, 301},
		{"notice larger than limit", strings.Repeat("a", 100), 10, "\n[odek: re", true, 100},
		{"notice exactly the limit", strings.Repeat("a", 1000), nr, notice(1000, nr), true, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Process([]string{tt.text}, ProcessOptions{Server: "s", Tool: "t", MaxChars: tt.limit})
			must(t, err)
			if p.Text != tt.want || p.Truncated != tt.truncated || p.ObservedChars != tt.observed {
				t.Fatalf("got %+v\nwant %q", p, tt.want)
			}
			if n := utf8.RuneCountInString(p.Text); n > tt.limit || !utf8.ValidString(p.Text) {
				t.Fatalf("text has %d runes (limit %d), valid=%v", n, tt.limit, utf8.ValidString(p.Text))
			}
			if tt.truncated != (p.Full == tt.text) {
				t.Fatalf("Full = %.40q", p.Full)
			}
		})
	}
}

func TestProcessDefaultLimit(t *testing.T) {
	p, err := Process([]string{strings.Repeat("a", DefaultMaxChars+1)}, ProcessOptions{})
	must(t, err)
	if !p.Truncated || utf8.RuneCountInString(p.Text) != DefaultMaxChars {
		t.Fatalf("truncated=%v runes=%d", p.Truncated, utf8.RuneCountInString(p.Text))
	}
}

func TestProcessTruncationEnvelope(t *testing.T) {
	fx := newFixture(t)
	refs := make([]Ref, 3)
	var lines []string
	for i := range refs {
		refs[i] = okRef("file://" + fx.okPath)
		refs[i].ID = fmt.Sprint("r", i)
		lines = append(lines, fmt.Sprintf(`- artifact "r%d" (text/plain, %d bytes, sha256 %s…)`, i, fx.okSize, fx.okSum[:12]))
	}
	meta := strings.Join(lines, "\n")
	mr := utf8.RuneCountInString(meta)
	env := envelopeJSON(t, strings.Repeat("世", 5000), refs...)
	observed := 5000 + 1 + mr + 1 + 4000
	notice := func(lim int) string { return TruncationNotice("s", "t", observed, lim) }
	nr := utf8.RuneCountInString(notice(1000))
	nr3 := nr - 1 // notice runes for a three-digit limit
	tests := []struct {
		name  string
		limit int
		want  string
		count int
	}{
		{"text shrinks, metadata kept", 1000, strings.Repeat("世", 1000-nr-mr-2) + "\n" + meta + notice(1000), 3},
		{"metadata alone overflows", nr3 + mr - 10, cutRunes(meta, mr-10) + notice(nr3+mr-10), 3},
		{"only the notice fits", nr3, notice(nr3), 0},
		{"room for text is zero", nr3 + mr + 2, meta + notice(nr3+mr+2), 3},
		{"tail cut after the head", 5000 + 1 + mr + 1 + 100 + nr + 1, strings.Repeat("世", 5000) + "\n" + meta + "\n" + strings.Repeat("p", 101) + notice(5000+1+mr+1+100+nr+1), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Process([]string{env, strings.Repeat("p", 4000)}, ProcessOptions{Server: "s", Tool: "t", Roots: []string{fx.root}, MaxChars: tt.limit})
			must(t, err)
			if p.Text != tt.want {
				t.Fatalf("got  %q\nwant %q", p.Text, tt.want)
			}
			if !p.Truncated || p.ObservedChars != observed || p.ArtifactCount != tt.count || len(p.Artifacts) != 3 {
				t.Fatalf("got %+v", p)
			}
			if n := utf8.RuneCountInString(p.Text); n > tt.limit {
				t.Fatalf("%d runes > limit %d", n, tt.limit)
			}
			if utf8.RuneCountInString(p.Full) != observed {
				t.Fatalf("Full has %d runes", utf8.RuneCountInString(p.Full))
			}
		})
	}
}
