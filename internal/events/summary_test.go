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

func TestKeysSummary(t *testing.T) {
	tests := []struct {
		args string
		want map[string]any
	}{
		{`{"query":"password=hunter2","path":"x"}`, map[string]any{"keys": []string{"path", "query"}}},
		{`{"url":"https://secret.example/"}`, map[string]any{"keys": []string{"url"}}},
		{`{}`, map[string]any{"keys": []string{}}},
		{`not json`, nil},
		{`[1,2]`, nil},
		{`null`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, KeysSummary([]byte(tc.args))); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummaryHelpers(t *testing.T) {
	long := strings.Repeat("é", 300) // 600 bytes
	for cmd, want := range map[string]string{
		"FOO=1 BAR=x /usr/local/bin/go test ./...": "go",
		"  ":           "",
		"=x ls":        "=x",
		`"ls" -l`:      "ls",
		"A=1 git push": "git",
	} {
		if got := Argv0(cmd); got != want {
			t.Errorf("Argv0(%q) = %q, want %q", cmd, got, want)
		}
	}
	if got := Clip(long); got != strings.Repeat("é", 256) {
		t.Errorf("Clip cut to %d bytes, want 512 on a rune boundary", len(got))
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

// FuzzArgsSummary: model-written arguments are untrusted; the summary helpers
// must never panic and never return a string over the cap.
func FuzzArgsSummary(f *testing.F) {
	for _, s := range []string{`{"command":"A=1 ls"}`, `{"url":"http://[::1]:80/"}`, `{"tasks":3}`, `{}`, "A=1 B= x", "http://u:p@h:1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		checkStrings(t, KeysSummary([]byte(args)))
		checkStrings(t, Argv0(args))
	})
}

func checkStrings(t *testing.T, v any) {
	switch x := v.(type) {
	case string:
		if len(x) > MaxSummaryString {
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
