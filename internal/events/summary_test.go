package events

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/odek-run/odek/internal/errclass"
)

func TestArgsSummary(t *testing.T) {
	long := strings.Repeat("é", 300) // 600 bytes
	tests := []struct {
		tool, args string
		want       map[string]any
	}{
		{"shell", `{"command":"FOO=1 BAR=x /usr/local/bin/go test ./..."}`, map[string]any{"argv0": "go"}},
		{"shell", `{"command":"  "}`, map[string]any{"argv0": ""}},
		{"shell", `{"command":"=x ls"}`, map[string]any{"argv0": "=x"}},
		{"parallel_shell", `{"commands":["ls -l","A=1 git status",{"command":"make"}]}`,
			map[string]any{"argv0": []string{"ls", "git", "make"}}},
		{"read_file", `{"path":"src/main.go","offset":3}`, map[string]any{"path": "src/main.go"}},
		{"write_file", `{"path":"` + long + `","content":"secret"}`, map[string]any{"path": strings.Repeat("é", 256)}},
		{"batch_patch", `{"patches":[{"path":"a.go","diff":"x"},{"path":"b.go"}]}`,
			map[string]any{"path": []string{"a.go", "b.go"}}},
		{"delegate_tasks", `{"tasks":[{"goal":"a"},{"goal":"b"}]}`, map[string]any{"task_count": 2}},
		{"plan", `{"action":"update","steps":["secret step"]}`, map[string]any{"action": "update"}},
		{"http_fetch", `{"url":"https://user:pw@api.example.com:8443/x?token=abc"}`,
			map[string]any{"host": "api.example.com:8443"}},
		{"github__search_code", `{"query":"password=hunter2","path":"x"}`,
			map[string]any{"keys": []string{"path", "query"}}},
		{"github__fetch", `{"url":"https://secret.example/"}`, map[string]any{"keys": []string{"url"}}},
		{"unknown_tool", `{"a":1}`, nil},
		{"shell", `not json`, nil},
		{"shell", `[1,2]`, nil},
		{"shell", `null`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args[:min(len(tc.args), 20)], func(t *testing.T) {
			got := ArgsSummary(tc.tool, []byte(tc.args))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestArgsSHA256(t *testing.T) {
	if got := ArgsSHA256([]byte("abc")); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("got %s", got)
	}
}

func TestNewRunID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{32}$`)
	a, b := NewRunID(), NewRunID()
	if !re.MatchString(a) || !re.MatchString(b) || a == b {
		t.Fatalf("run ids %q %q", a, b)
	}
}

type classed struct{ class string }

func (c classed) Error() string      { return "classed" }
func (c classed) ErrorClass() string { return c.class }

func TestErrorClass(t *testing.T) {
	budgetCtx, cancel := context.WithCancelCause(context.Background())
	cancel(classed{errclass.ExecutionBudget})
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("x"), errclass.Error},
		{context.Canceled, errclass.ContextCanceled},
		{fmt.Errorf("llm: %w", context.DeadlineExceeded), errclass.DeadlineExceeded},
		{fmt.Errorf("loop: %w", classed{errclass.RateLimited}), errclass.RateLimited},
		{classed{"made_up"}, errclass.Error},
		{errors.Join(context.Canceled, classed{errclass.MCPError}), errclass.MCPError}, // classifier first
		{context.Cause(budgetCtx), errclass.ExecutionBudget},
	}
	for _, tc := range tests {
		if got := ErrorClass(tc.err); got != tc.want {
			t.Errorf("ErrorClass(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// FuzzArgsSummary: model-written arguments are untrusted; the summary must
// never panic and never carry a string over the cap.
func FuzzArgsSummary(f *testing.F) {
	for _, s := range []string{`{"command":"A=1 ls"}`, `{"commands":["ls",{"command":"x"}]}`,
		`{"patches":[{"path":"a"}]}`, `{"url":"http://[::1]:80/"}`, `{"tasks":3}`, `{}`} {
		f.Add("shell", s)
		f.Add("parallel_shell", s)
		f.Add("batch_patch", s)
		f.Add("srv__t", s)
		f.Add("fetch", s)
	}
	f.Fuzz(func(t *testing.T, tool, args string) {
		checkStrings(t, ArgsSummary(tool, []byte(args)))
	})
}

func checkStrings(t *testing.T, v any) {
	switch x := v.(type) {
	case string:
		if len(x) > maxSummaryString {
			t.Fatalf("summary string of %d bytes", len(x))
		}
	case []string:
		for _, s := range x {
			checkStrings(t, s)
		}
	case map[string]any:
		for _, e := range x {
			checkStrings(t, e)
		}
	}
}
