package outschema

import (
	"net/url"
	"strconv"
	"strings"
)

// inPlace are the keywords whose schemas apply to the same value as the
// schema holding them; every other subschema applies to a part of it.
var inPlace = map[string]bool{
	"allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true,
	"dependentSchemas": true, "dependencies": true,
}

// subschemas calls yield for each schema directly inside s (at ptr), with
// whether it applies in place. Only well-formed documents are walked.
func (d *doc) subschemas(s map[string]any, ptr string, yield func(sub any, ptr string, inPlace bool)) {
	for _, k := range sortedKeys(s) {
		kind, known := keywords[k]
		p := ptr + "/" + escapeToken(k)
		switch {
		case k == "items" || k == "dependencies":
			if list, ok := s[k].([]any); ok && k == "items" {
				for i, sub := range list {
					yield(sub, p+"/"+strconv.Itoa(i), false)
				}
			} else if m, ok := s[k].(map[string]any); ok && k == "dependencies" {
				for _, name := range sortedKeys(m) {
					if _, isList := m[name].([]any); !isList {
						yield(m[name], p+"/"+escapeToken(name), true)
					}
				}
			} else if k == "items" {
				yield(s[k], p, false)
			}
		case !known:
		case kind == kwSchema:
			yield(s[k], p, inPlace[k])
		case kind == kwSchemaMap:
			m, _ := s[k].(map[string]any)
			for _, name := range sortedKeys(m) {
				yield(m[name], p+"/"+escapeToken(name), inPlace[k])
			}
		case kind == kwSchemaList:
			list, _ := s[k].([]any)
			for i, sub := range list {
				yield(sub, p+"/"+strconv.Itoa(i), inPlace[k])
			}
		}
	}
}

// resolveRefs records the target of every $ref and $dynamicRef in the
// schema at ptr and below it.
func (d *doc) resolveRefs(v any, ptr string) *SchemaError {
	s, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range []string{"$ref", "$dynamicRef"} {
		ref, ok := s[k].(string)
		if !ok {
			continue
		}
		target, err := d.resolve(ref)
		if err != "" {
			return schemaErr(ptr+"/"+k, "%s %s %s", k, strconv.Quote(ref), err)
		}
		d.targets[ptr+"/"+k] = target
	}
	var first *SchemaError
	d.subschemas(s, ptr, func(sub any, p string, _ bool) {
		if first == nil {
			first = d.resolveRefs(sub, p)
		}
	})
	return first
}

// resolve finds the pointer of a reference's target, or says why it has
// none. Only fragments are references inside the file (with the root's
// $id before them, if it has one).
func (d *doc) resolve(ref string) (string, string) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		id, _ := d.root.(map[string]any)["$id"].(string)
		rest, ok := strings.CutPrefix(ref, strings.TrimSuffix(id, "#")+"#")
		if id == "" || !ok {
			return "", errExternalRef.Error()
		}
		frag = rest
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return "", "is not a valid URI fragment"
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		target, ok := d.anchors[frag]
		if !ok {
			return "", "names an anchor the schema does not define"
		}
		return target, ""
	}
	if _, ok := d.at(frag); !ok {
		return "", "points to nothing in the schema"
	}
	return frag, ""
}

// at is the schema at a JSON pointer.
func (d *doc) at(ptr string) (any, bool) {
	v := d.root
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = t[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) || strconv.Itoa(i) != tok {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	switch v.(type) {
	case bool, map[string]any:
		return v, true
	}
	return nil, false
}

// noCycles refuses a schema in which following $refs and in-place
// keywords (allOf, not, if, …) leads back to where it started: validating
// any value against it would never end.
func (d *doc) noCycles() *SchemaError {
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(ptr string) *SchemaError
	visit = func(ptr string) *SchemaError {
		switch state[ptr] {
		case active:
			return d.cycleError(path, ptr)
		case done:
			return nil
		}
		state[ptr] = active
		path = append(path, ptr)
		defer func() { path = path[:len(path)-1] }()
		for _, next := range d.inPlaceEdges(ptr) {
			if err := visit(next); err != nil {
				return err
			}
		}
		state[ptr] = done
		return nil
	}
	var err *SchemaError
	d.eachSchema(d.root, "", func(ptr string) {
		if err == nil {
			err = visit(ptr)
		}
	})
	return err
}

// inPlaceEdges are the schemas that apply to the same value as the schema
// at ptr: its in-place subschemas and its references' targets.
func (d *doc) inPlaceEdges(ptr string) []string {
	v, _ := d.at(ptr)
	s, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for _, k := range []string{"$ref", "$dynamicRef"} {
		if t, ok := d.targets[ptr+"/"+k]; ok {
			out = append(out, t)
		}
	}
	d.subschemas(s, ptr, func(_ any, p string, inPlace bool) {
		if inPlace {
			out = append(out, p)
		}
	})
	return out
}

// eachSchema calls f with the pointer of every schema in the document.
func (d *doc) eachSchema(v any, ptr string, f func(string)) {
	f(ptr)
	if s, ok := v.(map[string]any); ok {
		d.subschemas(s, ptr, func(sub any, p string, _ bool) { d.eachSchema(sub, p, f) })
	}
}

// cycleError names the loop, at the $ref that closes it.
func (d *doc) cycleError(path []string, back string) *SchemaError {
	start := 0
	for i, p := range path {
		if p == back {
			start = i
		}
	}
	loop := append(append([]string{}, path[start:]...), back)
	for i, p := range loop {
		loop[i] = strconv.Quote("#" + p)
	}
	at := path[len(path)-1]
	for _, k := range []string{"/$ref", "/$dynamicRef"} {
		if t, ok := d.targets[at+k]; ok && t == back {
			at += k
			break
		}
	}
	return schemaErr(at, "a $ref cycle that never descends into the value: %s", strings.Join(loop, " → "))
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}
