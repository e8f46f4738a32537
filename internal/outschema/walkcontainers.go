package outschema

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

func (w *walker) array(m map[string]any, sptr string, a []any, ptr string) {
	n := int64(len(a))
	w.count(m, "minItems", n, ptr, -1)
	w.count(m, "maxItems", n, ptr, 1)
	if m["uniqueItems"] == true {
		w.unique(a, ptr)
	}
	first := 0
	var rest any
	restPtr := sptr + "/items"
	if list, ok := m["items"].([]any); ok { // draft-07 tuple
		w.tuple(list, sptr+"/items", a, ptr)
		first, rest, restPtr = len(list), m["additionalItems"], sptr+"/additionalItems"
	} else {
		if prefix, ok := m["prefixItems"].([]any); ok && !w.d.draft7 {
			w.tuple(prefix, sptr+"/prefixItems", a, ptr)
			first = len(prefix)
		}
		rest = m["items"]
	}
	if rest != nil {
		for i := first; i < len(a); i++ {
			w.schema(rest, restPtr, a[i], ptr+"/"+strconv.Itoa(i))
		}
	}
	if c, ok := m["contains"]; ok {
		w.contains(m, c, sptr+"/contains", a, ptr)
	}
}

func (w *walker) tuple(list []any, sptr string, a []any, ptr string) {
	for i, sub := range list {
		if i < len(a) {
			w.schema(sub, sptr+"/"+strconv.Itoa(i), a[i], ptr+"/"+strconv.Itoa(i))
		}
	}
}

func (w *walker) unique(a []any, ptr string) {
	for i := range a {
		for j := i + 1; j < len(a); j++ {
			if equalJSON(a[i], a[j]) {
				w.add(ptr, "uniqueItems: items at "+strconv.Itoa(i)+" and "+strconv.Itoa(j)+" are equal")
				return
			}
		}
	}
}

func (w *walker) contains(m map[string]any, c any, sptr string, a []any, ptr string) {
	n := int64(0)
	for i, x := range a {
		if w.matches(c, sptr, x, ptr+"/"+strconv.Itoa(i)) {
			n++
		}
	}
	lo, hasMin := number(m["minContains"])
	if !hasMin {
		lo = big.NewRat(1, 1)
	}
	if big.NewRat(n, 1).Cmp(lo) < 0 {
		w.add(ptr, "contains: "+strconv.FormatInt(n, 10)+" items match the schema at "+
			strconv.Quote("#"+sptr)+", want at least "+lo.RatString())
	}
	if hi, ok := number(m["maxContains"]); ok && big.NewRat(n, 1).Cmp(hi) > 0 {
		w.add(ptr, "maxContains: "+strconv.FormatInt(n, 10)+" items match the schema at "+
			strconv.Quote("#"+sptr)+", want at most "+hi.RatString())
	}
}

func (w *walker) object(m map[string]any, sptr string, o map[string]any, ptr string) {
	n := int64(len(o))
	w.count(m, "minProperties", n, ptr, -1)
	w.count(m, "maxProperties", n, ptr, 1)
	if req, ok := m["required"].([]any); ok {
		w.required(req, o, ptr)
	}
	w.dependencies(m, sptr, o, ptr)
	props, _ := m["properties"].(map[string]any)
	patterns, _ := m["patternProperties"].(map[string]any)
	var extra []string
	for _, k := range sortedKeys(o) {
		p := ptr + "/" + escapeToken(k)
		seen := false
		if sub, ok := props[k]; ok {
			w.schema(sub, sptr+"/properties/"+escapeToken(k), o[k], p)
			seen = true
		}
		for _, pat := range sortedKeys(patterns) {
			if re := w.d.regexps[pat]; re != nil && re.MatchString(k) {
				w.schema(patterns[pat], sptr+"/patternProperties/"+escapeToken(pat), o[k], p)
				seen = true
			}
		}
		if add, ok := m["additionalProperties"]; ok && !seen {
			if add == false {
				extra = append(extra, k)
			} else {
				w.schema(add, sptr+"/additionalProperties", o[k], p)
			}
		}
		if names, ok := m["propertyNames"]; ok && !w.matches(names, sptr+"/propertyNames", k, p) {
			w.add(ptr, "property name "+render(k)+" does not match the schema at "+strconv.Quote("#"+sptr+"/propertyNames"))
		}
	}
	if len(extra) > 0 {
		w.add(ptr, plural(len(extra), "additional property ", "additional properties ")+renderStrings(extra)+" not allowed")
	}
}

func (w *walker) required(req []any, o map[string]any, ptr string) {
	var missing []string
	for _, r := range req {
		if name, ok := r.(string); ok {
			if _, has := o[name]; !has {
				missing = append(missing, name)
			}
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		w.add(ptr, "missing property "+renderStrings(missing))
	default:
		w.add(ptr, "missing properties "+renderStrings(missing))
	}
}

// dependencies applies dependentRequired, dependentSchemas and draft-07's
// dependencies for each property the object has.
func (w *walker) dependencies(m map[string]any, sptr string, o map[string]any, ptr string) {
	keys := []string{"dependentRequired", "dependentSchemas"}
	if w.d.draft7 {
		keys = []string{"dependencies"}
	}
	for _, k := range keys {
		deps, _ := m[k].(map[string]any)
		for _, name := range sortedKeys(deps) {
			if _, has := o[name]; !has {
				continue
			}
			if list, ok := deps[name].([]any); ok {
				before := len(w.out)
				w.required(list, o, ptr)
				for i := before; i < len(w.out); i++ {
					w.out[i].Message += " (required when " + render(name) + " is present)"
				}
			} else {
				w.schema(deps[name], sptr+"/"+k+"/"+escapeToken(name), o, ptr)
			}
		}
	}
}

// typeMatches reports whether v is of the type keyword t (a name or a list).
func typeMatches(t, v any) bool {
	names, ok := t.([]any)
	if !ok {
		names = []any{t}
	}
	got := jsonKind(v)
	for _, x := range names {
		want, _ := x.(string)
		if want == got || want == "integer" && got == "number" && isInteger(v) {
			return true
		}
	}
	return false
}

func isInteger(v any) bool {
	r, ok := number(v)
	return ok && r.IsInt()
}

func typeNames(t any) string {
	names, ok := t.([]any)
	if !ok {
		s, _ := t.(string)
		return s
	}
	out := make([]string, len(names))
	for i, x := range names {
		out[i], _ = x.(string)
	}
	return strings.Join(out, " or ")
}

// equalJSON compares two decoded JSON values, numbers by value.
func equalJSON(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x.Cmp(y) == 0
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equalJSON)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			if yv, has := y[k]; !has || !equalJSON(xv, yv) {
				return false
			}
		}
		return true
	}
	return a == b // string, bool, nil
}

// render shows a value in a message: strings in single quotes, anything
// else as JSON.
func render(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "?"
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if _, ok := v.(string); ok { // escaped as in JSON, so it stays on one line
		return "'" + out[1:len(out)-1] + "'"
	}
	return out
}

func renderList(vs []any) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = render(v)
	}
	return strings.Join(out, ", ")
}

func renderStrings(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = render(s)
	}
	return strings.Join(out, ", ")
}
