package outschema

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/untrusted"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Bounds on what one violation may carry into a message.
const (
	maxPointerRunes = 120
	maxMessageRunes = 240
)

// printer renders the library's error kinds; built on the first violation.
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// Check parses a final answer and validates it. It returns the value,
// compacted, or a *MismatchError.
func (s *Schema) Check(answer string) (json.RawMessage, error) {
	raw, v, err := ParseAnswer(answer)
	if err != nil {
		return nil, &MismatchError{Syntax: err.Error()}
	}
	if vs := s.validate(v); len(vs) > 0 {
		return nil, &MismatchError{Violations: vs}
	}
	return raw, nil
}

// validate returns the violations of v, sorted by pointer; none = valid.
func (s *Schema) validate(v any) []Violation {
	err := s.sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{{Message: untrusted.OneLine(err.Error(), maxMessageRunes)}}
	}
	return violations(ve)
}

// violations flattens a validation error tree to its leaves (the causes of
// "allOf failed" and the like), deduplicated and sorted by pointer; leaves at
// one pointer keep the validator's order.
func violations(root *jsonschema.ValidationError) []Violation {
	var out []Violation
	seen := map[Violation]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		v := Violation{
			Pointer: untrusted.OneLine(pointer(e.InstanceLocation), maxPointerRunes),
			Message: untrusted.OneLine(e.ErrorKind.LocalizedString(printer()), maxMessageRunes),
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	walk(root)
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Pointer, b.Pointer) })
	return out
}

// pointer renders tokens as an RFC 6901 JSON pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}
