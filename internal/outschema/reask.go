package outschema

import (
	"fmt"
	"strings"
)

// ReAskErrors caps how many violations one re-ask message lists.
const ReAskErrors = 10

// Instruction is the paragraph the system message carries while a schema is
// in force. It includes the schema, for endpoints that cannot take it as
// response_format.
func (s *Schema) Instruction() string {
	return "Your final answer (the reply in which you call no tools) must be exactly one JSON value " +
		"that matches the JSON Schema below: no prose, no Markdown, nothing before or after the value. " +
		"It is parsed and validated; an answer that does not match is sent back to you with the errors.\n" +
		"JSON Schema of the final answer:\n" + string(s.raw)
}

// ReAsk is the user message that sends a mismatch back to the model: the
// syntax problem, or at most ReAskErrors violations (pointer and message),
// each on its own line, then how many more there were.
func ReAsk(m *MismatchError) string {
	var b strings.Builder
	if m.Syntax != "" {
		fmt.Fprintf(&b, "Your final answer was rejected: %s.\n", m.Syntax)
	} else {
		n := len(m.Violations)
		fmt.Fprintf(&b, "Your final answer does not match the required JSON Schema (%d %s, as JSON pointer: message):\n",
			n, plural(n, "error", "errors"))
		for i, v := range m.Violations {
			if i == ReAskErrors {
				fmt.Fprintf(&b, "- and %d more\n", n-ReAskErrors)
				break
			}
			b.WriteString("- " + v.String() + "\n")
		}
	}
	b.WriteString("Reply again with the complete corrected final answer: one JSON value matching the schema, and nothing else.")
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Guard holds one run's final answers to a schema, allowing a fixed number
// of re-asks. It is used from the loop goroutine only.
type Guard struct {
	schema  *Schema
	retries int
	used    int
	value   []byte
}

// NewGuard allows retries re-asks (negative counts as 0).
func NewGuard(s *Schema, retries int) *Guard {
	return &Guard{schema: s, retries: max(retries, 0)}
}

// Check checks one final answer. A valid answer's value is kept (Value); a
// mismatch while re-asks remain returns the re-ask message and counts it;
// a mismatch after the last re-ask returns the *MismatchError.
func (g *Guard) Check(answer string) (reAsk string, err error) {
	if err := g.Last(answer); err != nil {
		if g.used >= g.retries {
			return "", err
		}
		g.used++
		return ReAsk(err.(*MismatchError)), nil // Last returns no other error
	}
	return "", nil
}

// Last checks an answer that cannot be asked again: a valid answer's value
// is kept (Value), else the *MismatchError is returned.
func (g *Guard) Last(answer string) error {
	v, err := g.schema.Check(answer)
	if err != nil {
		return err
	}
	g.value = v
	return nil
}

// Value is the last valid answer's JSON value, compacted; nil before one.
func (g *Guard) Value() []byte { return g.value }

// Retries is how many re-asks were sent.
func (g *Guard) Retries() int { return g.used }

// Schema is the schema the guard holds answers to.
func (g *Guard) Schema() *Schema { return g.schema }
