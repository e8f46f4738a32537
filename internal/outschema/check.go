package outschema

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

// Bounds on what one violation may carry into a message.
const (
	maxPointerRunes = 120
	maxMessageRunes = 240
)

// Check parses a final answer and validates it. It returns the value,
// compacted, or a *MismatchError.
func (s *Schema) Check(answer string) (json.RawMessage, error) {
	raw, v, err := ParseAnswer(answer)
	if err != nil {
		return nil, &MismatchError{Syntax: err.Error()}
	}
	if vs := s.Validate(v); len(vs) > 0 {
		return nil, &MismatchError{Violations: vs}
	}
	return raw, nil
}

// Validate returns the violations of a decoded JSON value (numbers as
// json.Number, float64 or int), sorted by pointer; none = valid. Each names
// where in the value it is; each message is one line and bounded.
//
// A value is valid when both the validator library and odek's own walk
// accept it: the library knows every keyword; the walk places each problem
// in the value and compares numbers exactly (the library reads them as
// float64).
func (s *Schema) Validate(v any) []Violation {
	w := &walker{d: s.doc}
	w.schema(s.doc.root, "", v, "")
	err := s.sch.Validate(forValidator(v))
	if err != nil && len(w.out) == 0 { // a problem the walk cannot place: the validator's own words
		w.add("", libraryMessage(err.Error()))
	}
	return tidy(w.out)
}

// tidy bounds, deduplicates and sorts violations by pointer; those at one
// pointer keep the walk's order.
func tidy(vs []Violation) []Violation {
	if len(vs) == 0 {
		return nil
	}
	out := make([]Violation, 0, len(vs))
	seen := map[Violation]bool{}
	for _, v := range vs {
		v = Violation{Pointer: untrusted.OneLine(v.Pointer, maxPointerRunes), Message: untrusted.OneLine(v.Message, maxMessageRunes)}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Pointer, b.Pointer) })
	return out
}

// libraryMessage turns the validator's "validating P: validating Q: what"
// into "the value does not match the schema at "#Q": what".
func libraryMessage(msg string) string {
	where := ""
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		loc, tail, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		where, msg = loc, tail
	}
	if where == "root" {
		where = ""
	}
	return "the value does not match the schema at " + strconv.Quote("#"+where) + ": " + msg
}

// forValidator copies a decoded value with its numbers as float64, the only
// number the validator reads as a number (json.Number is a string to it).
func forValidator(v any) any {
	switch t := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(t), 64) // out of range: ±Inf, clamped
		return max(min(f, math.MaxFloat64), -math.MaxFloat64)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = forValidator(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = forValidator(x)
		}
		return out
	}
	return v
}
