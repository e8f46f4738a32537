package outschema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

// SchemaError is an output schema that cannot be used: unreadable, not JSON,
// an unsupported draft, or invalid against its metaschema. File is the path
// as given; Pointer is the JSON pointer of the problem inside the schema ("" =
// the whole document, or unknown).
type SchemaError struct {
	File    string
	Pointer string
	Msg     string
}

func (e *SchemaError) Error() string {
	if e.Pointer == "" {
		return fmt.Sprintf("output schema %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("output schema %s: at %s: %s", e.File, strconv.Quote(e.Pointer), e.Msg)
}

// Violation is one reason a value does not match the schema: where in the
// answer (a JSON pointer, "" for the whole value) and what is wrong.
type Violation struct {
	Pointer string
	Message string
}

// String renders the violation on one line: the pointer is quoted and the
// message's control characters are blanked, so text the model wrote cannot
// break the line or fake another entry.
func (v Violation) String() string {
	return strconv.Quote(v.Pointer) + ": " + untrusted.OneLine(v.Message, 0)
}

// MismatchError is a final answer that is not one JSON value matching the
// schema. Syntax says why it is not one JSON value at all; otherwise
// Violations (sorted by pointer, at least one) say where it does not match.
type MismatchError struct {
	Syntax     string
	Violations []Violation
}

// FailureErrors is how many violations the run's error message shows.
const FailureErrors = 3

func (e *MismatchError) Error() string {
	return "final answer does not match the output schema: " + e.summary(FailureErrors, "; ")
}

// summary lists the syntax problem or the first n violations, then how many
// more there are.
func (e *MismatchError) summary(n int, sep string) string {
	if e.Syntax != "" {
		return e.Syntax
	}
	var b strings.Builder
	for i, v := range e.Violations {
		if i == n {
			fmt.Fprintf(&b, "%s(and %d more)", sep, len(e.Violations)-n)
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(v.String())
	}
	return b.String()
}
