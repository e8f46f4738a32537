package events

import (
	"encoding/json"
	"testing"

	"github.com/odek-run/odek/internal/schemacheck"
)

func loadSchema(t *testing.T, path string) *schemacheck.Validator {
	t.Helper()
	v, err := schemacheck.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValidatorCanFail(t *testing.T) {
	v := loadSchema(t, "../../docs/schema/event.schema.json")
	bad := []string{
		`{"type":"run_started","run_id":"abc","timestamp":"2026-01-01T00:00:00Z"}`,
		`{"schema":"odek.event/v1","type":"budget_exceeded","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","data":{"limit_name":"money","observed":1,"limit":1}}`,
		`{"schema":"odek.event/v1","type":"tool_call_failed","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00+02:00","tool":"x","iteration":1,"data":{"call_id":"c","duration_ms":1,"error_class":"boom"}}`,
		`{"schema":"odek.event/v1","type":"session_saved","run_id":"0123456789abcdef0123456789abcdef","timestamp":"2026-01-01T00:00:00Z","iteration":0,"data":{"message_count":1.5}}`,
	}
	for _, line := range bad {
		var doc any
		if err := json.Unmarshal([]byte(line), &doc); err != nil {
			t.Fatal(err)
		}
		if errs := v.Validate(doc); len(errs) == 0 {
			t.Errorf("validator accepted %s", line)
		}
	}
}
