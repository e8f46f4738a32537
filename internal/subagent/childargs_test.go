package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// argsWatch is a Runner that records, by task context, the further flags
// each child was started with.
type argsWatch struct {
	Runner
	mu   sync.Mutex
	args map[string]string
}

func (a *argsWatch) Start(ctx context.Context, spec Spec) (Process, error) {
	b, err := os.ReadFile(spec.TaskFile)
	if err != nil {
		return nil, err
	}
	var task struct{ Context string }
	if err := json.Unmarshal(b, &task); err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.args[task.Context] = strings.Join(spec.Args, " ")
	a.mu.Unlock()
	return a.Runner.Start(ctx, spec)
}

// TestChildArgsFollowTaskOrder: ChildArgs is asked for the tasks of a batch
// in their order, whatever order their children start in. A recorded
// delegation names each child's cassette stream by its goal and how many
// children of that goal came before; a replay must give the same task the
// same stream.
func TestChildArgsFollowTaskOrder(t *testing.T) {
	aw := &argsWatch{args: map[string]string{}}
	var mu sync.Mutex
	n := 0
	tool, _, _ := newTestTool(t, "silent-ok", func(o *Options) {
		aw.Runner = o.Runner
		o.Runner = aw
		o.Semaphore = NewSemaphore(8, 0)
		o.ChildArgs = func(goal string) []string {
			mu.Lock()
			defer mu.Unlock()
			n++
			return []string{fmt.Sprintf("--n=%d", n)}
		}
	})
	var tasks []string
	for i := 1; i <= 8; i++ {
		tasks = append(tasks, fmt.Sprintf(`{"goal":"same goal","context":"c%d"}`, i))
	}
	unwrap(t, call(t, tool, context.Background(), `{"tasks":[`+strings.Join(tasks, ",")+`]}`))
	for i := 1; i <= 8; i++ {
		if got, want := aw.args[fmt.Sprintf("c%d", i)], fmt.Sprintf("--n=%d", i); !strings.HasSuffix(got, want) {
			t.Errorf("task %d started with %q, want its ChildArgs %q", i, got, want)
		}
	}
}
