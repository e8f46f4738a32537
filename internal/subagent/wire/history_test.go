package wire

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/llm"
)

func TestFromHistory(t *testing.T) {
	call := []llm.ToolCall{{ID: "1", Function: llm.FunctionCall{Name: "write_file"}}}
	hist := []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"},
		{Role: llm.RoleUser, Content: "Task: x"},
		{Role: llm.RoleAssistant, Content: "working", ToolCalls: call},
		{Role: llm.RoleTool, Name: "write_file", Content: "┌── TOOL RESULT ──┐\nwrote /w/a.txt (12 bytes)\ncreated /w/b.txt\nwrote /w/a.txt\npatched c.go: replaced lines 3-3\n└──┘"},
		{Role: llm.RoleAssistant, ToolCalls: call},
		{Role: llm.RoleTool, Name: "shell", Content: "error: operation denied by configuration: curl example.com (risk: network_egress)"},
		{Role: llm.RoleAssistant, Content: "All done."},
	}
	var r Result
	FromHistory(&r, hist, "")
	want := Result{
		Summary: "All done.", Iterations: 2, FilesChanged: []string{"/w/a.txt", "/w/b.txt", "c.go"},
		Denials:      []Denial{{Tool: "shell", Class: "network_egress", Reason: "operation denied by configuration: curl example.com (risk: network_egress)"}},
		DenialsTotal: 1,
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Fatalf("FromHistory (-want +got):\n%s", diff)
	}
}

func TestFromHistorySummaryCap(t *testing.T) {
	var r Result
	FromHistory(&r, nil, strings.Repeat("x", MaxSummaryRunes+5))
	if !r.SummaryTruncated || r.SummaryRunes != MaxSummaryRunes+5 || !strings.HasSuffix(r.Summary, "…") || len([]rune(r.Summary)) != MaxSummaryRunes+1 {
		t.Fatalf("truncated=%v runes=%d len=%d", r.SummaryTruncated, r.SummaryRunes, len([]rune(r.Summary)))
	}
}
