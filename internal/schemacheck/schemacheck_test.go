package schemacheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	schema := `{"type":"object","required":["a"],"properties":{
	  "a":{"type":"integer","minimum":1},
	  "b":{"enum":["x","y"]},
	  "c":{"type":"string","pattern":"^[0-9a-f]+$","minLength":2},
	  "d":{"type":"array","items":{"$ref":"#/$defs/n"}}},
	  "$defs":{"n":{"type":"number"}}}`
	p := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(p, []byte(schema), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ doc, want string }{
		{`{"a":1,"b":"x","c":"ab","d":[1,2.5]}`, ""},
		{`{"b":"x"}`, `missing required "a"`},
		{`{"a":0}`, "minimum"},
		{`{"a":1,"b":"z"}`, "enum"},
		{`{"a":1,"c":"zz"}`, "does not match"},
		{`{"a":1,"c":"a"}`, "shorter"},
		{`{"a":1,"d":["s"]}`, "/d/0"},
		{`{"a":"1"}`, "/a"},
	}
	for _, tt := range tests {
		var doc any
		if err := json.Unmarshal([]byte(tt.doc), &doc); err != nil {
			t.Fatal(err)
		}
		errs := strings.Join(v.Validate(doc), "; ")
		if (tt.want == "") != (errs == "") || !strings.Contains(errs, tt.want) {
			t.Errorf("Validate(%s) = %q, want %q", tt.doc, errs, tt.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}
