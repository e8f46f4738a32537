package mcpclient

import (
	"slices"
	"testing"
)

// Labels names each hint a server sent, as its doc says: read-only and
// idempotent only when true; destructive and open-world either way; a
// hint not sent adds nothing, and no annotations at all are no labels.
func TestHintLabels(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, tc := range []struct {
		name string
		ann  *ToolAnnotations
		want []string
	}{
		{"no annotations", nil, nil},
		{"no hints", &ToolAnnotations{Title: "T"}, nil},
		{"all true", &ToolAnnotations{ReadOnlyHint: &yes, DestructiveHint: &yes, IdempotentHint: &yes, OpenWorldHint: &yes},
			[]string{"read-only", "destructive", "idempotent", "open-world"}},
		{"all false", &ToolAnnotations{ReadOnlyHint: &no, DestructiveHint: &no, IdempotentHint: &no, OpenWorldHint: &no},
			[]string{"non-destructive", "closed-world"}},
		{"read-only alone", &ToolAnnotations{ReadOnlyHint: &yes}, []string{"read-only"}},
		{"read-only false alone", &ToolAnnotations{ReadOnlyHint: &no}, nil},
		{"idempotent, closed world", &ToolAnnotations{IdempotentHint: &yes, OpenWorldHint: &no}, []string{"idempotent", "closed-world"}},
		{"not destructive alone", &ToolAnnotations{DestructiveHint: &no}, []string{"non-destructive"}},
	} {
		if got := tc.ann.Labels(); !slices.Equal(got, tc.want) || (tc.want == nil) != (got == nil) {
			t.Errorf("%s: Labels() = %q, want %q", tc.name, got, tc.want)
		}
	}
	all := &ToolAnnotations{ReadOnlyHint: &yes, DestructiveHint: &no, OpenWorldHint: &yes}
	if got := all.LabelList(); got != "read-only, non-destructive, open-world" {
		t.Errorf("LabelList() = %q", got)
	}
	if got := (*ToolAnnotations)(nil).LabelList(); got != "" {
		t.Errorf("LabelList() of nil = %q", got)
	}
}
