package agentrun

import (
	"encoding/json"
	"strings"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/outschema"
)

// outputSchema is a run's --output-schema: the guard that holds the final
// answer to it, and what the requests ask for.
type outputSchema struct {
	guard  *outschema.Guard
	format *llm.ResponseFormat // nil when llm.response_format is off
}

// loadOutputSchema compiles the output_schema file (a setup error, exit 3,
// when it cannot be used). No setting, no schema.
func loadOutputSchema(cfg *config.Config) (*outputSchema, error) {
	if cfg.OutputSchema == "" {
		return nil, nil
	}
	path, err := cfg.OutputSchemaPath()
	if err != nil {
		return nil, err
	}
	s, err := outschema.Load(path)
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, err)
	}
	return newOutputSchema(s, cfg), nil
}

// newOutputSchema holds answers to s with the config's retries, asking for
// it as response_format unless llm.response_format is off.
func newOutputSchema(s *outschema.Schema, cfg *config.Config) *outputSchema {
	o := &outputSchema{guard: outschema.NewGuard(s, cfg.OutputSchemaRetries)}
	if cfg.LLM.ResponseFormat {
		o.format = &llm.ResponseFormat{Name: s.Name(), Schema: s.ResponseSchema(), Strict: s.Strict()}
	}
	return o
}

// system adds the schema's instruction to the system prompt.
func (o *outputSchema) system(base string) string {
	if o == nil {
		return base
	}
	if base == "" {
		return o.guard.Schema().Instruction()
	}
	return base + "\n\n" + o.guard.Schema().Instruction()
}

// task is a continued session's new task. The session's system prompt is the
// one it began with, so the schema's instruction goes with the task unless
// that prompt already carries it.
func (o *outputSchema) task(task string, hist []llm.Message) string {
	if o == nil {
		return task
	}
	in := o.guard.Schema().Instruction()
	if len(hist) > 0 && hist[0].Role == llm.RoleSystem && strings.Contains(hist[0].Content, in) {
		return task
	}
	return task + "\n\n" + in
}

// apply sets the loop's contract and response format. An endpoint that
// rejects the format gets none from then on (the llm client's fallback,
// worded by fallbackWarning).
func (o *outputSchema) apply(lo *loop.Options) {
	if o == nil {
		return
	}
	lo.Answers = o.guard
	lo.ResponseFormat = o.format
}

// value is the answer's JSON value once one matched, else nil.
func (o *outputSchema) value() json.RawMessage {
	if o == nil {
		return nil
	}
	return o.guard.Value()
}

// sha256 is the schema file's digest for the run report ("" without one).
func (o *outputSchema) sha256() string {
	if o == nil {
		return ""
	}
	return o.guard.Schema().SHA256()
}
