package wire

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
