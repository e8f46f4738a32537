package outschema

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileError turns the compiler's error into a *SchemaError that names the
// file (never the internal file URL) and the pointer of the problem.
func compileError(file, loc string, doc map[string]any, err error) error {
	var (
		sve *jsonschema.SchemaValidationError
		ve  *jsonschema.ValidationError
		lue *jsonschema.LoadURLError
		jpe *jsonschema.JSONPointerNotFoundError
		ane *jsonschema.AnchorNotFoundError
		ire *jsonschema.InvalidRegexError
	)
	se := &SchemaError{File: file}
	switch {
	case errors.As(err, &sve) && errors.As(sve.Err, &ve):
		vs := violations(ve)
		se.Pointer, se.Msg = vs[0].Pointer, vs[0].Message // a failed validation has a leaf
	case errors.As(err, &lue):
		se.Pointer, se.Msg = refProblem(loc, doc, lue.URL, errExternalRef.Error())
	case errors.As(err, &jpe):
		se.Pointer, se.Msg = refProblem(loc, doc, jpe.URL, "points to nothing in the schema")
	case errors.As(err, &ane):
		se.Pointer, se.Msg = refProblem(loc, doc, ane.Reference, "names an anchor the schema does not define")
	case errors.As(err, &ire):
		se.Pointer, se.Msg = fragment(ire.URL), "invalid regular expression "+strconv.Quote(ire.Regex)
	default:
		se.Msg = strings.ReplaceAll(err.Error(), loc, file)
	}
	return se
}

// refProblem finds the $ref whose target is target and describes it.
func refProblem(loc string, doc map[string]any, target, what string) (ptr, msg string) {
	base, _ := url.Parse(loc)
	for _, r := range refsIn(doc, "") {
		u, err := url.Parse(r.ref)
		if err != nil || base == nil {
			continue
		}
		abs := base.ResolveReference(u)
		noFrag := *abs
		noFrag.Fragment = ""
		if abs.String() == target || noFrag.String() == target {
			return r.ptr, "$ref " + strconv.Quote(r.ref) + " " + what
		}
	}
	return "", "$ref to " + strconv.Quote(strings.ReplaceAll(target, loc, "")) + " " + what
}

type refAt struct{ ptr, ref string }

// refsIn lists every $ref string in a schema document with its pointer, in a
// stable order.
func refsIn(v any, at string) []refAt {
	var out []refAt
	switch t := v.(type) {
	case map[string]any:
		if r, ok := t["$ref"].(string); ok {
			out = append(out, refAt{at + "/$ref", r})
		}
		for _, k := range sortedKeys(t) {
			out = append(out, refsIn(t[k], at+"/"+escapeToken(k))...)
		}
	case []any:
		for i, x := range t {
			out = append(out, refsIn(x, at+"/"+strconv.Itoa(i))...)
		}
	}
	return out
}

// fragment is the JSON pointer in a URL's fragment.
func fragment(u string) string {
	_, f, _ := strings.Cut(u, "#")
	if p, err := url.PathUnescape(f); err == nil {
		return p
	}
	return f
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}
