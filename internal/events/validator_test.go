package events

import (
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// loadSchema compiles a published schema with the real validator: the
// compiler checks the schema against its metaschema, and format is asserted
// (date-time), so a schema keyword is never silently ignored.
func loadSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestValidatorCanFail(t *testing.T) {
	v := loadSchema(t, "../../docs/schema/event.schema.json")
	bad := []string{
		`{"type":"run_started","run_id":"abc","timestamp":"2026-01-01T00:00:00Z"}`,
		`{"schema":"odek.event/v1","type":"budget_exceeded","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","data":{"limit_name":"money","observed":1,"limit":1}}`,
		`{"schema":"odek.event/v1","type":"tool_call_failed","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00+02:00","tool":"x","iteration":1,"data":{"call_id":"c","duration_ms":1,"error_class":"boom"}}`,
		`{"schema":"odek.event/v1","type":"session_saved","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","iteration":0,"data":{"message_count":1.5}}`,
		// output_schema comes with schema_retries, and is only ever true
		`{"schema":"odek.event/v1","type":"run_completed","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","data":{"duration_ms":1,"input_tokens":1,"output_tokens":1,"llm_duration_ms":1,"output_schema":true}}`,
		`{"schema":"odek.event/v1","type":"run_failed","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","data":{"duration_ms":1,"error_class":"error","schema_retries":2}}`,
		`{"schema":"odek.event/v1","type":"run_failed","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","data":{"duration_ms":1,"error_class":"error","output_schema":false,"schema_retries":0}}`,
		// matches the pattern but is no date-time: only an asserted format catches it
		`{"schema":"odek.event/v1","type":"session_saved","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-13-45T25:61:00Z","data":{"message_count":1}}`,
		// a subagent_event holds a whole, valid event, and names its task
		`{"schema":"odek.event/v1","type":"subagent_event","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","data":{"task_id":"task-0011223344556677"}}`,
		`{"schema":"odek.event/v1","type":"subagent_event","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","data":{"event":{"schema":"odek.event/v1","type":"a_later_type","run_id":"00112233445566778899aabbccddeeff","timestamp":"2026-01-01T00:00:00Z"}}}`,
		`{"schema":"odek.event/v1","type":"subagent_event","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","data":{"task_id":"task-0011223344556677","event":{"schema":"odek.event/v1","type":"run_failed","run_id":"00112233445566778899aabbccddeeff","timestamp":"2026-01-01T00:00:00Z","data":{"duration_ms":1,"error_class":"boom"}}}}`,
	}
	for _, line := range bad {
		var doc any
		if err := json.Unmarshal([]byte(line), &doc); err != nil {
			t.Fatal(err)
		}
		if err := v.Validate(doc); err == nil {
			t.Errorf("validator accepted %s", line)
		}
	}
}
