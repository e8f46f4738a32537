package agentrun

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/outschema"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// childSchema compiles a sub-agent's output schema: --output-schema (a file,
// relative to the working directory), else the task file's output_schema
// object; nil when neither is given. The config's output_schema describes
// the answer of the run the operator started, so it never applies to a
// sub-agent: every child of such a run would have to answer its parent in
// the parent's schema. A schema that does not compile is a setup error.
func childSchema(file string, t *wire.Task, cfg *config.Config) (*outputSchema, error) {
	var s *outschema.Schema
	var err error
	switch {
	case file != "":
		s, err = outschema.Load(file)
	case t.OutputSchema != nil:
		s, err = outschema.Compile("output_schema", t.OutputSchema)
		err = taskSchemaError(err)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, err)
	}
	return newOutputSchema(s, cfg), nil
}

// taskSchemaError names a task file's schema problem like the task file's
// other field errors: `task file: output_schema at "/type": …`.
func taskSchemaError(err error) error {
	var se *outschema.SchemaError
	if !errors.As(err, &se) {
		return err
	}
	reason := se.Msg
	if se.Pointer != "" {
		reason = "at " + strconv.Quote(se.Pointer) + ": " + se.Msg
	}
	return &wire.TaskError{Field: "output_schema", Reason: reason}
}

// redactedJSON masks secrets in a result's JSON value as the summary's are
// masked. The patterns keep JSON strings intact; should a mask ever break
// the value, it is left out rather than handed on broken.
func redactedJSON(v json.RawMessage) json.RawMessage {
	if v == nil {
		return nil
	}
	out := json.RawMessage(redact.String(string(v)))
	if !json.Valid(out) {
		return nil
	}
	return out
}
