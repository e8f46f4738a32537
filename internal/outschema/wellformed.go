package outschema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The validator does not check a schema against its metaschema, so odek
// checks what it would otherwise accept without meaning anything: every
// keyword it knows has a value of the right kind, every type is a JSON type,
// every $ref resolves inside the file, and no $ref cycle can be followed
// without descending into the answer (which would recurse for ever).

type kwKind int

const (
	kwSchema     kwKind = iota + 1 // one schema
	kwSchemaMap                    // object of schemas
	kwSchemaList                   // non-empty array of schemas
	kwCount                        // non-negative integer
	kwNumber                       // number
	kwString                       // string
	kwBool                         // boolean
	kwArray                        // array of anything
	kwNames                        // array of unique strings
)

// keywords are the keywords whose values are checked, for both drafts;
// draftKeywords adjusts the few that differ.
var keywords = map[string]kwKind{
	"not": kwSchema, "if": kwSchema, "then": kwSchema, "else": kwSchema,
	"additionalProperties": kwSchema, "contains": kwSchema, "propertyNames": kwSchema,
	"unevaluatedItems": kwSchema, "unevaluatedProperties": kwSchema, "additionalItems": kwSchema,
	"properties": kwSchemaMap, "patternProperties": kwSchemaMap, "$defs": kwSchemaMap,
	"definitions": kwSchemaMap, "dependentSchemas": kwSchemaMap,
	"allOf": kwSchemaList, "anyOf": kwSchemaList, "oneOf": kwSchemaList, "prefixItems": kwSchemaList,
	"minLength": kwCount, "maxLength": kwCount, "minItems": kwCount, "maxItems": kwCount,
	"minProperties": kwCount, "maxProperties": kwCount, "minContains": kwCount, "maxContains": kwCount,
	"minimum": kwNumber, "maximum": kwNumber, "exclusiveMinimum": kwNumber, "exclusiveMaximum": kwNumber,
	"multipleOf": kwNumber,
	"pattern":    kwString, "$ref": kwString, "$dynamicRef": kwString, "$anchor": kwString,
	"$dynamicAnchor": kwString, "$id": kwString, "$comment": kwString, "title": kwString,
	"description": kwString, "format": kwString, "contentMediaType": kwString, "contentEncoding": kwString,
	"uniqueItems": kwBool, "readOnly": kwBool, "writeOnly": kwBool, "deprecated": kwBool,
	"enum": kwArray, "examples": kwArray, "required": kwNames,
	// Not used in validation, but the validator resolves it as a schema: a
	// $ref into it is followed, so a cycle through it must be seen.
	"contentSchema": kwSchema,
}

// libraryKeywords are the object keys the validator library decodes into
// its own fields (keywords above, plus those checked by keyword or decoded
// as plain values). It decodes with encoding/json, which matches keys
// case-insensitively: "$reF" is its $ref, though odek's own checks see an
// unknown annotation. So a key that folds to one of these but is spelt
// differently is refused, and both sides read one document.
var libraryKeywords = []string{
	"type", "items", "dependencies", "dependentRequired", "const", "default", "$schema", "$vocabulary",
}

var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// doc is a schema document being checked: its root, draft, the schemas
// its anchors name, and each $ref's target (by the $ref's pointer).
type doc struct {
	root    any
	draft7  bool
	anchors map[string]string // anchor name -> pointer of its schema
	targets map[string]string // pointer of a $ref or $dynamicRef -> pointer of its target
	regexps map[string]*regexp.Regexp
}

// wellFormed checks a decoded schema document and resolves its references.
func wellFormed(root map[string]any, draft7 bool) (*doc, *SchemaError) {
	d := &doc{root: root, draft7: draft7, anchors: map[string]string{}, targets: map[string]string{},
		regexps: map[string]*regexp.Regexp{}}
	if err := d.schema(root, ""); err != nil {
		return nil, err
	}
	if err := d.resolveRefs(root, ""); err != nil {
		return nil, err
	}
	if err := d.noCycles(); err != nil {
		return nil, err
	}
	return d, nil
}

func schemaErr(ptr, format string, a ...any) *SchemaError {
	return &SchemaError{Pointer: ptr, Msg: fmt.Sprintf(format, a...)}
}

// schema checks one schema (an object or a boolean) at ptr and every
// schema inside it.
func (d *doc) schema(v any, ptr string) *SchemaError {
	if _, ok := v.(bool); ok {
		return nil
	}
	s, ok := v.(map[string]any)
	if !ok {
		return schemaErr(ptr, "got %s, want object or boolean", jsonKind(v))
	}
	for _, k := range sortedKeys(s) {
		if want, ok := misspelt(k); ok {
			return schemaErr(ptr+"/"+escapeToken(k), "%q is not a keyword (keywords are case-sensitive): write %q", k, want)
		}
		if err := d.keyword(s, k, ptr+"/"+escapeToken(k)); err != nil {
			return err
		}
	}
	return nil
}

// misspelt reports the keyword k matches only case-insensitively (the way
// encoding/json matches it: strings.EqualFold, Unicode folds included).
func misspelt(k string) (string, bool) {
	if _, exact := keywords[k]; exact || slices.Contains(libraryKeywords, k) {
		return "", false
	}
	for name := range keywords {
		if strings.EqualFold(k, name) {
			return name, true
		}
	}
	for _, name := range libraryKeywords {
		if strings.EqualFold(k, name) {
			return name, true
		}
	}
	return "", false
}

func (d *doc) keyword(s map[string]any, k, ptr string) *SchemaError {
	v := s[k]
	switch k {
	case "type":
		return checkType(v, ptr)
	case "items":
		if list, ok := v.([]any); ok && d.draft7 {
			return d.schemaList(list, ptr, false)
		}
		return d.schema(v, ptr)
	case "dependentRequired":
		return d.namesMap(v, ptr, nil)
	case "dependencies":
		return d.namesMap(v, ptr, d.schema)
	case "$id":
		if ptr != "/$id" {
			return schemaErr(ptr, "an $id inside the schema is not supported: name subschemas under $defs and refer to them as \"#/$defs/…\"")
		}
	case "$anchor", "$dynamicAnchor":
		if name, ok := v.(string); ok {
			if _, dup := d.anchors[name]; dup {
				return schemaErr(ptr, "anchor %q is defined twice", name)
			}
			d.anchors[name] = strings.TrimSuffix(ptr, "/"+k)
		}
	}
	kind, known := keywords[k]
	if !known {
		return nil // an annotation odek does not know: allowed, ignored
	}
	return d.value(kind, v, ptr)
}

func (d *doc) value(kind kwKind, v any, ptr string) *SchemaError {
	switch kind {
	case kwSchema:
		return d.schema(v, ptr)
	case kwSchemaMap:
		m, ok := v.(map[string]any)
		if !ok {
			return schemaErr(ptr, "got %s, want object", jsonKind(v))
		}
		for _, name := range sortedKeys(m) {
			if strings.HasSuffix(ptr, "/patternProperties") {
				if err := d.regexp(name, ptr+"/"+escapeToken(name)); err != nil {
					return err
				}
			}
			if err := d.schema(m[name], ptr+"/"+escapeToken(name)); err != nil {
				return err
			}
		}
	case kwSchemaList:
		list, ok := v.([]any)
		if !ok {
			return schemaErr(ptr, "got %s, want array", jsonKind(v))
		}
		return d.schemaList(list, ptr, true)
	case kwCount:
		if r, ok := number(v); !ok || !r.IsInt() || r.Sign() < 0 {
			return schemaErr(ptr, "got %s, want a non-negative integer", quoteJSON(v))
		}
	case kwNumber:
		r, ok := number(v)
		if !ok {
			return schemaErr(ptr, "got %s, want number", jsonKind(v))
		}
		if strings.HasSuffix(ptr, "/multipleOf") && r.Sign() <= 0 {
			return schemaErr(ptr, "got %s, want a number greater than 0", quoteJSON(v))
		}
	case kwString:
		str, ok := v.(string)
		if !ok {
			return schemaErr(ptr, "got %s, want string", jsonKind(v))
		}
		if strings.HasSuffix(ptr, "/pattern") {
			return d.regexp(str, ptr)
		}
	case kwBool:
		if _, ok := v.(bool); !ok {
			return schemaErr(ptr, "got %s, want boolean", jsonKind(v))
		}
	case kwArray:
		if _, ok := v.([]any); !ok {
			return schemaErr(ptr, "got %s, want array", jsonKind(v))
		}
	case kwNames:
		return names(v, ptr)
	}
	return nil
}

func (d *doc) schemaList(list []any, ptr string, nonEmpty bool) *SchemaError {
	if nonEmpty && len(list) == 0 {
		return schemaErr(ptr, "an empty array: want at least one schema")
	}
	for i, sub := range list {
		if err := d.schema(sub, ptr+"/"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

// namesMap checks an object whose members are arrays of property names, or
// (with orSchema, for draft-07 dependencies) schemas.
func (d *doc) namesMap(v any, ptr string, orSchema func(any, string) *SchemaError) *SchemaError {
	m, ok := v.(map[string]any)
	if !ok {
		return schemaErr(ptr, "got %s, want object", jsonKind(v))
	}
	for _, k := range sortedKeys(m) {
		p := ptr + "/" + escapeToken(k)
		if _, isList := m[k].([]any); isList || orSchema == nil {
			if err := names(m[k], p); err != nil {
				return err
			}
		} else if err := orSchema(m[k], p); err != nil {
			return err
		}
	}
	return nil
}

func (d *doc) regexp(expr, ptr string) *SchemaError {
	re, err := regexp.Compile(expr)
	if err != nil {
		return schemaErr(ptr, "'%s' is not valid regex", expr)
	}
	d.regexps[expr] = re
	return nil
}

func checkType(v any, ptr string) *SchemaError {
	bad := schemaErr(ptr, "value must be one of %s", quotedList(jsonTypes))
	switch t := v.(type) {
	case string:
		if !slices.Contains(jsonTypes, t) {
			return bad
		}
	case []any:
		if len(t) == 0 {
			return schemaErr(ptr, "an empty array: want at least one type")
		}
		seen := map[string]bool{}
		for i, x := range t {
			name, _ := x.(string)
			if !slices.Contains(jsonTypes, name) {
				return checkType(x, ptr+"/"+strconv.Itoa(i))
			}
			if seen[name] {
				return schemaErr(ptr, "type %q is listed twice", name)
			}
			seen[name] = true
		}
	default:
		return schemaErr(ptr, "got %s, want string or array", jsonKind(v))
	}
	return nil
}

func names(v any, ptr string) *SchemaError {
	list, ok := v.([]any)
	if !ok {
		return schemaErr(ptr, "got %s, want array", jsonKind(v))
	}
	seen := map[string]bool{}
	for i, x := range list {
		name, ok := x.(string)
		if !ok {
			return schemaErr(ptr+"/"+strconv.Itoa(i), "got %s, want string", jsonKind(x))
		}
		if seen[name] {
			return schemaErr(ptr, "%q is listed twice", name)
		}
		seen[name] = true
	}
	return nil
}

// number is a JSON number as an exact rational: a json.Number (as
// decodeValue yields), a float64 or an int (as encoding/json or Go code
// yield). A literal whose exponent is beyond ±maxExponent is taken at its
// float64 value (clamped to the largest finite one), so an answer cannot
// make odek build a number of a billion digits.
func number(v any) (*big.Rat, bool) {
	switch n := v.(type) {
	case json.Number:
		if e := exponent(string(n)); e > maxExponent || e < -maxExponent {
			f, _ := strconv.ParseFloat(string(n), 64)
			return number(max(min(f, math.MaxFloat64), -math.MaxFloat64))
		}
		return new(big.Rat).SetString(string(n))
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(n), true
	case int:
		return new(big.Rat).SetInt64(int64(n)), true
	case int64:
		return new(big.Rat).SetInt64(n), true
	}
	return nil, false
}

const maxExponent = 1000

// exponent is the exponent of a JSON number literal (0 if it has none, a
// huge value if it does not fit an int).
func exponent(s string) int {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return 0
	}
	e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
	if err != nil {
		return math.MaxInt
	}
	return e
}

// jsonKind names a decoded value's JSON type.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	if _, ok := number(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func quotedList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "'" + s + "'"
	}
	return strings.Join(q, ", ")
}
