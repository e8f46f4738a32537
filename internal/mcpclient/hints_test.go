package mcpclient

import (
	"testing"

	"github.com/odek-run/odek/internal/risk"
)

func TestAssessRiskFromHints(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name    string
		ann     *ToolAnnotations
		project bool
		class   risk.Class
		inspect bool
	}{
		{"no hints", nil, false, risk.LocalWrite, false},
		{"read-only", &ToolAnnotations{ReadOnlyHint: &yes}, false, risk.Safe, true},
		{"read-only from a project server", &ToolAnnotations{ReadOnlyHint: &yes}, true, risk.LocalWrite, false},
		{"not read-only", &ToolAnnotations{ReadOnlyHint: &no}, false, risk.LocalWrite, false},
		{"destructive", &ToolAnnotations{DestructiveHint: &yes}, false, risk.LocalWrite, false},
		{"closed world, not destructive", &ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}, true, risk.LocalWrite, false},
	}
	for _, tt := range tests {
		a := &ToolAdapter{Client: &Client{name: "s"}, ToolName: "t", Annotations: tt.ann, Project: tt.project}
		got, err := a.AssessRisk([]byte(`{"x":1}`))
		if err != nil || got.Class != tt.class || got.Inspect != tt.inspect || got.Set != risk.Of(tt.class) || got.What != `s__t {"x":1}` || got.Reason == "" {
			t.Errorf("%s: %+v, %v", tt.name, got, err)
		}
	}
}
