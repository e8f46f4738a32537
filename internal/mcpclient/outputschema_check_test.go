package mcpclient

import (
	"strings"
	"testing"
)

// CheckOutputSchema reports, before any call, an outputSchema odek refuses
// (odek tools asks it of every tool); the outcome is kept, so the tool's
// calls fail with the same reason, and tools with a good schema or none
// pass.
func TestCheckOutputSchema(t *testing.T) {
	t.Parallel()
	c, err := eraClient(t, "modern", ServerConfig{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"seen", "weather", "no_such_tool"} {
		if err := c.CheckOutputSchema(tool); err != nil {
			t.Errorf("%s: %v", tool, err)
		}
	}
	err = c.CheckOutputSchema("remote_schema")
	const want = "mcpclient era: tool remote_schema: outputSchema does not compile: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "references to other documents are not followed") {
		t.Fatalf("err = %v, want %s…", err, want)
	}
	if e, ok := err.(*opError); !ok || e.ErrorClass() != classMCP {
		t.Errorf("err is %T, want an *Error of class %s", err, classMCP)
	}
	_, callErr := eraCall(t, c, "remote_schema")
	if callErr == nil || !strings.Contains(callErr.Error(), "cannot check structured content: "+strings.TrimPrefix(err.Error(), "mcpclient era: tool remote_schema: ")) {
		t.Errorf("call: %v", callErr)
	}
}
