package mcpclient

import (
	"encoding/json"
	"strings"
	"testing"
)

// A server's outputSchema whose references loop without reaching into the
// value made the first validation recurse until the Go runtime killed odek
// with a stack overflow. Such a schema is now refused when it compiles, and
// the call's structured content is reported unchecked instead.
func TestOutputSchemaRefCycleRefused(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"self", `{"$ref":"#"}`, "the reference at the root leads back to itself"},
		{"through allOf", `{"allOf":[{"$ref":"#"}]}`, "leads back to itself"},
		{"two defs", `{"$ref":"#/$defs/a","$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"}]},"b":{"not":{"$ref":"#/$defs/a"}}}}`, "leads back to itself"},
		{"escaped pointer", `{"$ref":"#/$defs/a~1b","$defs":{"a/b":{"$ref":"#/%24defs/a~1b"}}}`, "leads back to itself"},
		{"anchor", `{"$defs":{"a":{"$anchor":"x","if":{"$ref":"#x"}}},"$ref":"#/$defs/a"}`, "leads back to itself"},
		{"dynamic", `{"$dynamicAnchor":"n","oneOf":[{"$dynamicRef":"#n"}]}`, "leads back to itself"},
		{"dynamic by pointer", `{"$defs":{"a":{"allOf":[{"$dynamicRef":"#/$defs/a"}]}}}`, "leads back to itself"},
		{"dependencies", `{"dependencies":{"k":{"$ref":"#"}}}`, "leads back to itself"},
		{"keyword spelt in another case", `{"$reF":"#"}`, "leads back to itself"},
		{"unresolvable", `{"$ref":"#/$defs/a/type","$defs":{"a":{"type":"string"}}}`, "does not compile"},
		{"nested $id", `{"$defs":{"a":{"$id":"http://x/a","$ref":"#"}}}`, "an $id below the root is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{name: "s"}
			c.outSchemas.set([]ToolDef{{Name: "t", OutputSchema: json.RawMessage(tt.schema)}})
			err := c.checkStructured("t", json.RawMessage(`{"a":1}`))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// A recursive type is no cycle: each reference reaches into a part of the
// value, so validation ends with the value.
func TestOutputSchemaRecursionAccepted(t *testing.T) {
	tree := `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"allOf":[{"$ref":"#/$defs/named"}]},"named":{"required":["name"]}}}`
	c := &Client{name: "s"}
	c.outSchemas.set([]ToolDef{{Name: "t", OutputSchema: json.RawMessage(tree)}})
	if err := c.checkStructured("t", json.RawMessage(`{"name":"a","kids":[{"name":"b","kids":[]}]}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.checkStructured("t", json.RawMessage(`{"name":"a","kids":[{"kids":[]}]}`)); err == nil {
		t.Fatal("a kid without a name passed")
	}
}

// Every keyword that reaches into a part of the value ends a chain of
// references, whichever it is.
func TestOutputSchemaRecursionBelowAccepted(t *testing.T) {
	for _, kw := range []string{"items", "additionalItems", "contains", "unevaluatedItems", "additionalProperties",
		"propertyNames", "unevaluatedProperties", "contentSchema"} {
		schema := `{"$ref":"#/$defs/x","$defs":{"x":{"` + kw + `":{"$ref":"#/$defs/x"}}}}`
		if _, err := compileOutputSchema([]byte(schema)); err != nil {
			t.Errorf("%s: %v", kw, err)
		}
	}
	for _, kw := range []string{"prefixItems", "items"} {
		schema := `{"$ref":"#/$defs/x","$defs":{"x":{"` + kw + `":[{"$ref":"#/$defs/x"}]}}}`
		if _, err := compileOutputSchema([]byte(schema)); err != nil {
			t.Errorf("%s list: %v", kw, err)
		}
	}
}

// FuzzOutputSchema: no outputSchema a server sends may crash validation.
func FuzzOutputSchema(f *testing.F) {
	f.Add(`{"$ref":"#"}`, `{"a":1}`)
	f.Add(`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `1`)
	f.Add(`{"$dynamicAnchor":"n","oneOf":[{"$dynamicRef":"#n"}]}`, `[]`)
	f.Add(`{"items":[{"$ref":"#/items/0"}]}`, `[1]`)
	f.Fuzz(func(t *testing.T, schema, value string) {
		v, err := compileOutputSchema([]byte(schema))
		if err != nil {
			return
		}
		if x, err := decodeJSONValue([]byte(value)); err == nil {
			_ = v.validate(x)
		}
	})
}
