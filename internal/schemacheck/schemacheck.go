// Package schemacheck validates JSON documents against the subset of JSON
// Schema that docs/schema/*.json use: type, required, properties, enum,
// const, pattern, minLength, minimum, items, allOf, if/then and local $ref.
// Keywords it does not know (format, description) are ignored, like a
// permissive validator. Tests use it to check every event odek emits and
// every run report it prints against the published schemas, without a
// schema library in the module.
package schemacheck

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Validator checks documents against one schema.
type Validator struct {
	root map[string]any
}

// Load reads a schema file.
func Load(path string) (*Validator, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Validator{root: root}, nil
}

// Validate returns every violation, each prefixed by its JSON pointer; none
// means doc conforms.
func (v *Validator) Validate(doc any) []string {
	return v.check(v.root, doc, "")
}

func (v *Validator) check(s map[string]any, doc any, at string) []string {
	if ref, ok := s["$ref"].(string); ok {
		s = v.resolve(ref)
	}
	var errs []string
	fail := func(format string, a ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, a...)) }
	if t, ok := s["type"]; ok && !typeMatches(t, doc) {
		fail("want type %v, got %T", t, doc)
		return errs
	}
	if c, ok := s["const"]; ok && !jsonEqual(c, doc) {
		fail("want const %v, got %v", c, doc)
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return jsonEqual(x, doc) }) {
		fail("%v not in enum %v", doc, e)
	}
	errs = append(errs, checkString(s, doc, at)...)
	if m, ok := s["minimum"].(float64); ok {
		if n, isNum := doc.(float64); isNum && n < m {
			fail("%v below minimum %v", n, m)
		}
	}
	errs = append(errs, v.checkObject(s, doc, at)...)
	if items, ok := s["items"].(map[string]any); ok {
		if arr, isArr := doc.([]any); isArr {
			for i, x := range arr {
				errs = append(errs, v.check(items, x, fmt.Sprintf("%s/%d", at, i))...)
			}
		}
	}
	for _, sub := range anySlice(s["allOf"]) {
		errs = append(errs, v.checkCond(sub.(map[string]any), doc, at)...)
	}
	return errs
}

// checkCond applies an allOf member, honouring if/then.
func (v *Validator) checkCond(s map[string]any, doc any, at string) []string {
	cond, hasIf := s["if"].(map[string]any)
	if !hasIf {
		return v.check(s, doc, at)
	}
	if len(v.check(cond, doc, at)) != 0 {
		return nil
	}
	if then, ok := s["then"].(map[string]any); ok {
		return v.check(then, doc, at)
	}
	return nil
}

func (v *Validator) checkObject(s map[string]any, doc any, at string) []string {
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	var errs []string
	for _, r := range anySlice(s["required"]) {
		if _, ok := obj[r.(string)]; !ok {
			errs = append(errs, fmt.Sprintf("%s: missing required %q", at, r))
		}
	}
	props, _ := s["properties"].(map[string]any)
	for k, ps := range props {
		if x, ok := obj[k]; ok {
			errs = append(errs, v.check(ps.(map[string]any), x, at+"/"+k)...)
		}
	}
	return errs
}

func checkString(s map[string]any, doc any, at string) []string {
	str, ok := doc.(string)
	if !ok {
		return nil
	}
	var errs []string
	if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
		errs = append(errs, fmt.Sprintf("%s: %q does not match %s", at, str, p))
	}
	if m, ok := s["minLength"].(float64); ok && float64(len([]rune(str))) < m {
		errs = append(errs, fmt.Sprintf("%s: %q shorter than %v", at, str, m))
	}
	return errs
}

func (v *Validator) resolve(ref string) map[string]any {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		panic("unsupported $ref " + ref)
	}
	return v.root["$defs"].(map[string]any)[name].(map[string]any)
}

func typeMatches(t any, doc any) bool {
	if list, ok := t.([]any); ok {
		return slices.ContainsFunc(list, func(x any) bool { return typeMatches(x, doc) })
	}
	switch t {
	case "object":
		_, ok := doc.(map[string]any)
		return ok
	case "array":
		_, ok := doc.([]any)
		return ok
	case "string":
		_, ok := doc.(string)
		return ok
	case "boolean":
		_, ok := doc.(bool)
		return ok
	case "number":
		_, ok := doc.(float64)
		return ok
	case "integer":
		n, ok := doc.(float64)
		return ok && n == math.Trunc(n)
	case "null":
		return doc == nil
	}
	panic(fmt.Sprintf("unsupported type %v", t))
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestValidatorCanFail makes sure the validator is not vacuous.
