package mcpclient

import (
	"strings"
	"testing"
)

// A $dynamicRef may land on any $dynamicAnchor of its name, not only the
// one a static lookup finds: here "#n" resolves statically to the $defs
// entry (no loop), but dynamically to the root, whose oneOf holds the
// reference again. The cycle check must follow both, or the validator
// recurses until the runtime kills odek.
func TestOutputSchemaDynamicScopeCycleRefused(t *testing.T) {
	t.Parallel()
	schema := `{"$dynamicAnchor":"n","oneOf":[{"$dynamicRef":"#n"}],"$defs":{"leaf":{"$dynamicAnchor":"n","type":"string"}}}`
	if _, err := compileOutputSchema([]byte(schema)); err == nil || !strings.Contains(err.Error(), "leads back to itself") {
		t.Fatalf("err = %v, want the loop through the dynamic scope refused", err)
	}
}
