package outschema

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The library says whether a value is valid; its errors name only the
// first problem and where in the schema it is. A re-ask must tell the model
// where in its answer each problem is, so a value the library refuses is
// walked again here, alongside the schema, collecting every problem at its
// instance location. The walk knows the keywords of both drafts except
// $dynamicRef and unevaluated*; what it cannot place, it leaves to the
// library's message.

// maxSteps bounds one walk (nested anyOf can multiply the work).
const maxSteps = 100_000

type walker struct {
	d     *doc
	out   []Violation
	steps int
}

func (w *walker) add(ptr, msg string) { w.out = append(w.out, Violation{Pointer: ptr, Message: msg}) }

// matches reports whether v passes the schema at sptr as far as the walk
// can tell, without recording anything.
func (w *walker) matches(s any, sptr string, v any, ptr string) bool {
	sub := &walker{d: w.d, steps: w.steps}
	sub.schema(s, sptr, v, ptr)
	w.steps = sub.steps
	return len(sub.out) == 0
}

// schema walks value v (at ptr in the answer) against schema s (at sptr).
func (w *walker) schema(s any, sptr string, v any, ptr string) {
	if w.steps++; w.steps > maxSteps {
		return
	}
	if b, ok := s.(bool); ok {
		if !b {
			w.add(ptr, "false schema: no value is allowed here")
		}
		return
	}
	m, _ := s.(map[string]any)
	if target, ok := w.d.targets[sptr+"/$ref"]; ok {
		ts, _ := w.d.at(target)
		w.schema(ts, target, v, ptr)
		if w.d.draft7 {
			return // draft-07 ignores the keywords beside $ref
		}
	}
	w.generic(m, v, ptr)
	w.logic(m, sptr, v, ptr)
	switch t := v.(type) {
	case string:
		w.str(m, t, ptr)
	case []any:
		w.array(m, sptr, t, ptr)
	case map[string]any:
		w.object(m, sptr, t, ptr)
	default:
		if n, ok := number(v); ok {
			w.num(m, v, n, ptr)
		}
	}
}

func (w *walker) generic(m map[string]any, v any, ptr string) {
	if t, ok := m["type"]; ok && !typeMatches(t, v) {
		w.add(ptr, "got "+jsonKind(v)+", want "+typeNames(t))
	}
	if e, ok := m["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || equalJSON(x, v)
		}
		if !found {
			w.add(ptr, "value must be one of "+renderList(e))
		}
	}
	if c, ok := m["const"]; ok && !equalJSON(c, v) {
		w.add(ptr, "value must be "+render(c))
	}
}

func (w *walker) logic(m map[string]any, sptr string, v any, ptr string) {
	if all, ok := m["allOf"].([]any); ok {
		for i, sub := range all {
			w.schema(sub, sptr+"/allOf/"+strconv.Itoa(i), v, ptr)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := m[k].([]any)
		if !ok {
			continue
		}
		var passed []string
		for i, sub := range alts {
			if w.matches(sub, sptr+"/"+k+"/"+strconv.Itoa(i), v, ptr) {
				passed = append(passed, strconv.Itoa(i))
			}
		}
		switch {
		case len(passed) == 0:
			w.add(ptr, k+": the value matches none of the "+strconv.Itoa(len(alts))+" alternatives")
			for i, sub := range alts { // what each alternative wants, so the model can pick one
				w.schema(sub, sptr+"/"+k+"/"+strconv.Itoa(i), v, ptr)
			}
		case k == "oneOf" && len(passed) > 1:
			w.add(ptr, "oneOf: the value matches alternatives "+strings.Join(passed, " and ")+"; want exactly one")
		}
	}
	if not, ok := m["not"]; ok && w.matches(not, sptr+"/not", v, ptr) {
		w.add(ptr, "not: the value must not match the schema at "+strconv.Quote("#"+sptr+"/not"))
	}
	if cond, ok := m["if"]; ok {
		branch := "else"
		if w.matches(cond, sptr+"/if", v, ptr) {
			branch = "then"
		}
		if sub, ok := m[branch]; ok {
			w.schema(sub, sptr+"/"+branch, v, ptr)
		}
	}
}

func (w *walker) str(m map[string]any, s, ptr string) {
	n := int64(utf8.RuneCountInString(s))
	w.count(m, "minLength", n, ptr, -1)
	w.count(m, "maxLength", n, ptr, 1)
	if p, ok := m["pattern"].(string); ok {
		if re := w.d.regexps[p]; re != nil && !re.MatchString(s) {
			w.add(ptr, render(s)+" does not match pattern "+render(p))
		}
	}
}

// count reports a count against a bound keyword: dir -1 = a minimum.
func (w *walker) count(m map[string]any, k string, n int64, ptr string, dir int) {
	b, ok := number(m[k])
	if !ok {
		return
	}
	if big.NewRat(n, 1).Cmp(b) == dir {
		w.add(ptr, k+": got "+strconv.FormatInt(n, 10)+", want "+b.RatString())
	}
}

func (w *walker) num(m map[string]any, v any, n *big.Rat, ptr string) {
	got := render(v)
	for _, c := range []struct {
		k    string
		bad  func(int) bool
		want string
	}{
		{"minimum", func(c int) bool { return c < 0 }, ""},
		{"maximum", func(c int) bool { return c > 0 }, ""},
		{"exclusiveMinimum", func(c int) bool { return c <= 0 }, "greater than "},
		{"exclusiveMaximum", func(c int) bool { return c >= 0 }, "less than "},
	} {
		if b, ok := number(m[c.k]); ok && c.bad(n.Cmp(b)) {
			w.add(ptr, c.k+": got "+got+", want "+c.want+render(m[c.k]))
		}
	}
	if b, ok := number(m["multipleOf"]); ok && b.Sign() > 0 && !new(big.Rat).Quo(n, b).IsInt() {
		w.add(ptr, "multipleOf: got "+got+", want a multiple of "+render(m["multipleOf"]))
	}
}
