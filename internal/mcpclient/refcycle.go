package mcpclient

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The validator follows a $ref by recursing, and a cycle of references that
// never moves into a part of the value ({"$ref": "#"}, or two $defs that
// allOf each other) recurses until the Go runtime kills the process with a
// stack overflow, which no recover catches. A server's outputSchema is
// untrusted, so its reference graph is checked before the first validation.
// The check walks the library's own decoded Schema, not a second parse of
// the bytes, so that no spelling or duplicate key can read one way here and
// another way there.

// schemaGraph indexes a decoded schema document by JSON pointer.
type schemaGraph struct {
	byPtr   map[string]*jsonschema.Schema // pointer segments joined by "\x00"
	ptrOf   map[*jsonschema.Schema]string // the pointer shown in errors
	anchors map[string]*jsonschema.Schema // $anchor and $dynamicAnchor names
	dynamic map[string][]*jsonschema.Schema
}

// checkRefCycles refuses a schema in which a chain of in-place keywords and
// references leads back to where it started, and one whose references it
// cannot follow (they would be unknown edges).
func checkRefCycles(root *jsonschema.Schema) error {
	g := &schemaGraph{byPtr: map[string]*jsonschema.Schema{}, ptrOf: map[*jsonschema.Schema]string{},
		anchors: map[string]*jsonschema.Schema{}, dynamic: map[string][]*jsonschema.Schema{}}
	if err := g.index(root, nil, true); err != nil {
		return err
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[*jsonschema.Schema]int{}
	var visit func(s *jsonschema.Schema) error
	visit = func(s *jsonschema.Schema) error {
		switch state[s] {
		case open:
			return fmt.Errorf("the reference at %s leads back to itself without reaching into the value", g.name(s))
		case done:
			return nil
		}
		state[s] = open
		next, err := g.inPlace(s)
		if err != nil {
			return err
		}
		for _, n := range next {
			if err := visit(n); err != nil {
				return err
			}
		}
		state[s] = done
		return nil
	}
	for _, p := range slices.Sorted(maps.Keys(g.byPtr)) { // the root first
		if err := visit(g.byPtr[p]); err != nil {
			return err
		}
	}
	return nil
}

func (g *schemaGraph) name(s *jsonschema.Schema) string {
	if p := g.ptrOf[s]; p != "" {
		return "#/" + strings.ReplaceAll(p, "\x00", "/")
	}
	return "the root"
}

// index records s and every schema below it, with the segments the library
// uses in pointers.
func (g *schemaGraph) index(s *jsonschema.Schema, path []string, isRoot bool) error {
	if s == nil {
		return nil
	}
	if _, seen := g.ptrOf[s]; seen {
		return nil
	}
	if s.ID != "" && !isRoot {
		return fmt.Errorf("$id at #/%s: an $id below the root is not supported", strings.Join(path, "/"))
	}
	key := strings.Join(path, "\x00")
	g.byPtr[key], g.ptrOf[s] = s, key
	if s.Anchor != "" {
		g.anchors[s.Anchor] = s
	}
	if s.DynamicAnchor != "" {
		g.anchors[s.DynamicAnchor] = s
		g.dynamic[s.DynamicAnchor] = append(g.dynamic[s.DynamicAnchor], s)
	}
	var err error
	eachChild(s, func(c *jsonschema.Schema, seg ...string) {
		if err == nil {
			err = g.index(c, append(path[:len(path):len(path)], seg...), false)
		}
	})
	return err
}

// eachChild calls f for every subschema the library decodes, with its
// pointer segments and whether it applies to the same value (in place).
func eachChild(s *jsonschema.Schema, f func(c *jsonschema.Schema, seg ...string)) {
	eachChildKind(s, func(c *jsonschema.Schema, _ bool, seg ...string) { f(c, seg...) })
}

func eachChildKind(s *jsonschema.Schema, f func(c *jsonschema.Schema, inPlace bool, seg ...string)) {
	one := map[string]*jsonschema.Schema{"not": s.Not, "if": s.If, "then": s.Then, "else": s.Else}
	for k, c := range one {
		f(c, true, k)
	}
	for k, list := range map[string][]*jsonschema.Schema{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf} {
		for i, c := range list {
			f(c, true, k, strconv.Itoa(i))
		}
	}
	for k, m := range map[string]map[string]*jsonschema.Schema{"dependentSchemas": s.DependentSchemas, "dependencies": s.DependencySchemas} {
		for name, c := range m {
			f(c, true, k, name)
		}
	}
	below := map[string]*jsonschema.Schema{"items": s.Items, "additionalItems": s.AdditionalItems,
		"contains": s.Contains, "unevaluatedItems": s.UnevaluatedItems, "additionalProperties": s.AdditionalProperties,
		"propertyNames": s.PropertyNames, "unevaluatedProperties": s.UnevaluatedProperties, "contentSchema": s.ContentSchema}
	for k, c := range below {
		f(c, false, k)
	}
	for k, list := range map[string][]*jsonschema.Schema{"prefixItems": s.PrefixItems, "items": s.ItemsArray} {
		for i, c := range list {
			f(c, false, k, strconv.Itoa(i))
		}
	}
	for k, m := range map[string]map[string]*jsonschema.Schema{"$defs": s.Defs, "definitions": s.Definitions,
		"properties": s.Properties, "patternProperties": s.PatternProperties} {
		for name, c := range m {
			f(c, false, k, name)
		}
	}
}

// inPlace returns the schemas that apply to the same value as s: its
// in-place subschemas and the targets of its references.
func (g *schemaGraph) inPlace(s *jsonschema.Schema) ([]*jsonschema.Schema, error) {
	var out []*jsonschema.Schema
	eachChildKind(s, func(c *jsonschema.Schema, inPlace bool, _ ...string) {
		if c != nil && inPlace {
			out = append(out, c)
		}
	})
	for _, ref := range []string{s.Ref, s.DynamicRef} {
		if ref == "" {
			continue
		}
		t, err := g.target(ref)
		if err != nil {
			return nil, fmt.Errorf("$ref %s at %s: %v", strconv.Quote(ref), g.name(s), err)
		}
		out = append(out, t)
	}
	if s.DynamicRef != "" { // it may land on any $dynamicAnchor of that name
		_, frag, _ := strings.Cut(s.DynamicRef, "#")
		out = append(out, g.dynamic[frag]...)
	}
	return out, nil
}

// target resolves a reference inside the document.
func (g *schemaGraph) target(ref string) (*jsonschema.Schema, error) {
	rest, ok := strings.CutPrefix(ref, outputSchemaURI)
	if !ok {
		rest = ref
	}
	frag, ok := strings.CutPrefix(rest, "#")
	if !ok {
		return nil, errExternalRef
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, err
	}
	if frag == "" {
		return g.byPtr[""], nil
	}
	if !strings.HasPrefix(frag, "/") {
		if t := g.anchors[frag]; t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("no anchor %q in the schema", frag)
	}
	segs := strings.Split(frag[1:], "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	if t := g.byPtr[strings.Join(segs, "\x00")]; t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("it does not point at a schema in the document")
}
