package config

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzMembers checks the object splitter against encoding/json on every
// valid JSON object: the same keys, each with the same value.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : 1 , "b":[1,{"c":"}"}], "d\"e": "x\\"y" } `, `{"a":{"b":{}},"a":2}`,
		`{"s":"é\u00e9","n":-1.5e3,"t":true,"z":null}`, `[1]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		if !json.Valid(data) || json.Unmarshal(data, &want) != nil || want == nil {
			return
		}
		got, err := members(data)
		if err != nil {
			t.Fatalf("members(%q): %v", data, err)
		}
		last := map[string]json.RawMessage{}
		for _, m := range got {
			last[m.key] = m.raw
		}
		if len(last) != len(want) {
			t.Fatalf("members(%q) = %d keys, want %d", data, len(last), len(want))
		}
		for k, raw := range want {
			if !bytes.Equal(last[k], bytes.TrimSpace(raw)) {
				t.Fatalf("members(%q)[%q] = %q, want %q", data, k, last[k], raw)
			}
		}
	})
}
