package outschema

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The validator decodes with encoding/json, which matches keys without
// regard to case. "$reF" was its $ref but odek's checks' unknown
// annotation, so {"$reF": "#"} passed the cycle check and then recursed
// until the process died (a fatal stack overflow, not a panic: nothing
// recovers it). A key spelt as a keyword only case-insensitively is
// refused; a property named like a keyword is not a keyword and stays.
func TestCompileRefusesMisspeltKeywords(t *testing.T) {
	tests := []struct{ name, doc, at, want string }{
		{"ref in another case", `{"$reF": "#"}`, "/$reF", `"$reF" is not a keyword (keywords are case-sensitive): write "$ref"`},
		{"type twice in two cases", `{"type": "string", "TYPE": "integer"}`, "/TYPE", `write "type"`},
		{"nested", `{"properties": {"a": {"Not": {}}}}`, "/properties/a/Not", `write "not"`},
		{"a Unicode fold (long s)", "{\"propertie\u017f\": {}}", "/propertie\u017f", `write "properties"`},
		{"library-only keyword", `{"CONST": 1}`, "/CONST", `write "const"`},
		{"items", `{"Items": {"$ref": "#"}}`, "/Items", `write "items"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("s.json", []byte(tt.doc))
			var se *SchemaError
			if !errors.As(err, &se) || se.File != "s.json" {
				t.Fatalf("err = %v, want a SchemaError", err)
			}
			if se.Pointer != tt.at || !strings.Contains(se.Msg, tt.want) {
				t.Fatalf("err = %v (pointer %q)\nwant at %q: %s", err, se.Pointer, tt.at, tt.want)
			}
		})
	}
	for _, doc := range []string{`{"properties": {"TYPE": {"type": "string"}, "$reF": {}}}`, `{"x-Ref": "#", "refs": 1}`} {
		if _, err := Compile("s.json", []byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

// Every key the library decodes into a field of its own is one odek knows
// exactly (so a library upgrade that adds a keyword fails here), and every
// one of them in upper case is refused.
func TestLibraryKeywordsKnown(t *testing.T) {
	known := func(n string) bool { _, ok := keywords[n]; return ok || slices.Contains(libraryKeywords, n) }
	st := reflect.TypeFor[jsonschema.Schema]()
	for i := range st.NumField() {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && !known(name) {
			t.Errorf("the library decodes %q, which odek does not know", name)
		}
	}
	for _, n := range append(slices.Sorted(func(yield func(string) bool) {
		for k := range keywords {
			if !yield(k) {
				return
			}
		}
	}), libraryKeywords...) {
		up := strings.ToUpper(n)
		if got, ok := misspelt(up); !ok || got != n {
			t.Errorf("misspelt(%q) = %q, %v; want %q", up, got, ok, n)
		}
		if _, ok := misspelt(n); ok {
			t.Errorf("misspelt(%q) refuses the keyword itself", n)
		}
	}
}
