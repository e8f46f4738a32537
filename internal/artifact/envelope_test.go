package artifact

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseEnvelope(t *testing.T) {
	many := make([]string, MaxRefs+1)
	for i := range many {
		many[i] = fmt.Sprintf(`{"schema":"odek.artifact-ref/v1","id":"a%d","uri":"file:///x","media_type":"t/p"}`, i)
	}
	tests := []struct {
		name     string
		in       string
		ok       bool
		wantErr  string
		wantText string
		wantRefs int
	}{
		{"plain text", "hello", false, "", "", 0},
		{"empty", "", false, "", "", 0},
		{"json array", `[1,2]`, false, "", "", 0},
		{"invalid json", `{"not json`, false, "", "", 0},
		{"invalid json, other schema", `{"schema":"odek.tool-result/v2","text":"x"`, false, "", "", 0},
		{"broken envelope: cut", `{"schema":"odek.tool-result/v1",`, true, "malformed odek.tool-result/v1 envelope: not valid JSON: unexpected end of JSON input", "", 0},
		{"broken envelope: bad member", `{"schema":"odek.tool-result/v1", text: "x"}`, true, "malformed odek.tool-result/v1 envelope: not valid JSON: invalid character 't'", "", 0},
		{"broken envelope: schema after the break", `{"text":"x" "schema":"odek.tool-result/v1"}`, true, "malformed odek.tool-result/v1 envelope: not valid JSON: ", "", 0},
		{"broken envelope: escaped slash", `{"schema":"odek.tool-result\/v1","text":"a`, true, "malformed odek.tool-result/v1 envelope: not valid JSON: ", "", 0},
		{"broken envelope: unicode escapes", `{"a":{"b":[1]},"sch\u0065ma":"odek.tool\u002dresult/v1","text":"a`, true, "malformed odek.tool-result/v1 envelope: not valid JSON: ", "", 0},
		{"broken, schema only nested", `{"a":{"schema":"odek.tool\u002dresult/v1"},"text":"a`, false, "", "", 0},
		{"json without schema", `{"text":"x"}`, false, "", "", 0},
		{"other schema", `{"schema":"odek.tool-result/v2","text":"x"}`, false, "", "", 0},
		{"non-string schema", `{"schema":1,"text":"x"}`, false, "", "", 0},
		{"envelope", `{"schema":"odek.tool-result/v1","text":"hi"}`, true, "", "hi", 0},
		{"BOM and space", "\uFEFF  \n{\"schema\":\"odek.tool-result/v1\",\"text\":\"hi\"}\n", true, "", "hi", 0},
		{"unknown fields ignored", `{"schema":"odek.tool-result/v1","text":"hi","extra":{"a":[1]},"artifacts":[{"schema":"odek.artifact-ref/v1","id":"a","uri":"file:///x","media_type":"t","new":true}]}`, true, "", "hi", 1},
		{"bad text type", `{"schema":"odek.tool-result/v1","text":5}`, true, "malformed odek.tool-result/v1 envelope: ", "", 0},
		{"bad artifacts type", `{"schema":"odek.tool-result/v1","artifacts":{}}`, true, "malformed odek.tool-result/v1 envelope: ", "", 0},
		{"bad size type", `{"schema":"odek.tool-result/v1","artifacts":[{"size_bytes":"1"}]}`, true, "malformed odek.tool-result/v1 envelope: ", "", 0},
		// encoding/json matches keys ignoring case (Unicode folds too) and
		// keeps the last: a later "Schema" must not turn an envelope into
		// plain text that reaches the model raw, refs unvalidated.
		{"schema then Schema", `{"schema":"odek.tool-result/v1","Schema":"plain","text":"x","artifacts":[{"schema":"odek.artifact-ref/v1","id":"a","uri":"file:///etc/shadow","media_type":"t"}]}`, true, "malformed odek.tool-result/v1 envelope: the schema field is given 2 times", "", 0},
		{"schema twice", `{"schema":"odek.tool-result/v1","schema":"x"}`, true, "malformed odek.tool-result/v1 envelope: the schema field is given 2 times", "", 0},
		{"schema twice, envelope last", `{"schema":"x","schema":"odek.tool-result/v1","text":"hi"}`, true, "malformed odek.tool-result/v1 envelope: the schema field is given 2 times", "", 0},
		{"long s folds to s", "{\"\u017fchema\":\"odek.tool-result/v1\",\"schema\":\"x\"}", true, "malformed odek.tool-result/v1 envelope: the schema field is given 2 times", "", 0},
		{"schema twice, neither an envelope", `{"schema":"x","Schema":"y","text":"z"}`, false, "", "", 0},
		{"nested schema twice", `{"a":{"schema":"odek.tool-result/v1","schema":"x"}}`, false, "", "", 0},
		{"schema only as array items", `{"schema":"x","a":[1,"schema","odek.tool-result/v1"]}`, false, "", "", 0},
		{"64 refs", `{"schema":"odek.tool-result/v1","artifacts":[` + strings.Join(many[:MaxRefs], ",") + `]}`, true, "", "", MaxRefs},
		{"65 refs", `{"schema":"odek.tool-result/v1","artifacts":[` + strings.Join(many, ",") + `]}`, true, "malformed odek.tool-result/v1 envelope: 65 artifact refs exceed the limit of 64", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, ok, err := ParseEnvelope(tt.in)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || !errors.Is(err, ErrMalformedEnvelope) {
					t.Fatalf("err = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return
			}
			if env.Text != tt.wantText || len(env.Artifacts) != tt.wantRefs {
				t.Fatalf("env = %+v", env)
			}
		})
	}
}

func TestParseEnvelopeSizeBytesPresence(t *testing.T) {
	env, _, err := ParseEnvelope(`{"schema":"odek.tool-result/v1","artifacts":[{"id":"a","size_bytes":0},{"id":"b"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if env.Artifacts[0].SizeBytes == nil || *env.Artifacts[0].SizeBytes != 0 || env.Artifacts[1].SizeBytes != nil {
		t.Fatalf("size_bytes presence lost: %+v", env.Artifacts)
	}
}
