package subagent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTaskNarrowing(t *testing.T) {
	in := `{"goal":"g","parent_tools":["read_file","delegate_tasks"],
	 "parent_policy":{"classes":{"local_write":"deny","safe":"allow"},"allowlist":["go test ./..."],"denylist":["rm -rf /"]},
	 "llm":{"stream":"false","llm.idle_timeout_seconds":"30","context_window":"8192"}}`
	task, err := ParseTask([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	tools := []string{"read_file", "delegate_tasks"}
	want := &Task{Goal: "g", ParentTools: &tools,
		ParentPolicy: &Policy{Classes: map[string]string{"local_write": "deny", "safe": "allow"},
			Allowlist: []string{"go test ./..."}, Denylist: []string{"rm -rf /"}},
		LLM: map[string]string{"stream": "false", "llm.idle_timeout_seconds": "30", "context_window": "8192"}}
	if diff := cmp.Diff(want, task); diff != "" {
		t.Fatalf("ParseTask (-want +got):\n%s", diff)
	}
	// An empty tool set is kept as such: the child then offers nothing.
	b, _ := (&Task{Goal: "g", ParentTools: &[]string{}}).Encode()
	again, err := ParseTask(b)
	if err != nil || again.ParentTools == nil || len(*again.ParentTools) != 0 {
		t.Fatalf("%s → %+v, %v", b, again, err)
	}
}

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
	parent := &Policy{Classes: map[string]string{"local_write": "deny", "shell": "allow", "install": "allow", "network_egress": "prompt"}}
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
