package childside

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/subagent/wire"
)

func TestIntersectTools(t *testing.T) {
	parent := []string{"read_file", "write_file", "delegate_tasks", "read_file"}
	tests := []struct {
		name   string
		own    []string
		parent *[]string
		want   []string
	}{
		{"no narrowing", []string{"shell"}, nil, []string{"shell"}},
		{"no narrowing, all", nil, nil, nil},
		{"all of own", nil, &parent, []string{"read_file", "write_file", "delegate_tasks"}},
		{"both", []string{"shell", "write_file"}, &parent, []string{"write_file"}},
		{"disjoint", []string{"shell"}, &parent, []string{}},
		{"parent has none", nil, &[]string{}, []string{}},
	}
	for _, tc := range tests {
		got := IntersectTools(tc.own, tc.parent)
		if diff := cmp.Diff(tc.want, got); diff != "" || (tc.want != nil) != (got != nil) {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestStricterClasses(t *testing.T) {
	own := map[string]string{"safe": "allow", "local_write": "allow", "shell": "deny", "install": "prompt"}
	parent := &wire.Policy{Classes: map[string]string{"local_write": "deny", "shell": "allow", "install": "allow", "network_egress": "prompt"}}
	got := StricterClasses(own, parent)
	want := map[string]string{"safe": "allow", "local_write": "deny", "shell": "deny", "install": "prompt", "network_egress": "prompt"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if own["local_write"] != "allow" {
		t.Fatal("own was modified")
	}
	if diff := cmp.Diff(own, StricterClasses(own, nil)); diff != "" {
		t.Fatal(diff)
	}
}
