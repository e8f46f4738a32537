package mcpclient

import (
	"testing"

	"github.com/odek-run/odek/internal/risk"
)

// A hint relaxes the policy only where the operator trusts the server's
// hints (trust_annotations); a project server's never do.
func TestAssessRiskFromHints(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name           string
		ann            *ToolAnnotations
		project, trust bool
		class          risk.Class
		inspect        bool
	}{
		{"no hints", nil, false, true, risk.LocalWrite, false},
		{"read-only, hints trusted", &ToolAnnotations{ReadOnlyHint: &yes}, false, true, risk.Safe, true},
		{"read-only, hints not trusted", &ToolAnnotations{ReadOnlyHint: &yes}, false, false, risk.LocalWrite, false},
		{"read-only from a project server", &ToolAnnotations{ReadOnlyHint: &yes}, true, false, risk.LocalWrite, false},
		{"read-only from a project server marked trusted", &ToolAnnotations{ReadOnlyHint: &yes}, true, true, risk.LocalWrite, false},
		{"not read-only", &ToolAnnotations{ReadOnlyHint: &no}, false, true, risk.LocalWrite, false},
		{"destructive", &ToolAnnotations{DestructiveHint: &yes}, false, true, risk.LocalWrite, false},
		{"closed world, not destructive", &ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}, true, false, risk.LocalWrite, false},
	}
	for _, tt := range tests {
		a := &ToolAdapter{Client: &Client{name: "s"}, ToolName: "t", Annotations: tt.ann, Project: tt.project, TrustHints: tt.trust}
		got, err := a.AssessRisk([]byte(`{"x":1}`))
		if err != nil || got.Class != tt.class || got.Inspect != tt.inspect || got.Set != risk.Of(tt.class) || got.What != `s__t {"x":1}` || got.Reason == "" {
			t.Errorf("%s: %+v, %v", tt.name, got, err)
		}
	}
}
