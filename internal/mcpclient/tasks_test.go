package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// taskClient connects to a taskServer, in memory, and discovers; hidden
// leaves the extension out of what the server advertises.
func taskClient(t *testing.T, cfg ServerConfig, hidden bool) (*Client, *notices) {
	t.Helper()
	ns := &notices{}
	s := &taskServer{hidden: hidden}
	c, _, err := connectInMemory(t, "jobs", cfg, Options{OnNotice: ns.add}, s.serve)
	if err != nil {
		t.Fatal(err)
	}
	return c, ns
}

func taskCall(c *Client, tool, args string, d time.Duration) (*callResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return c.callToolResult(ctx, tool, json.RawMessage(args))
}

func (n *notices) tasks() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, x := range n.got {
		if x.Kind == NoticeTask {
			out = append(out, x.TaskStatus)
		}
	}
	return strings.Join(out, ",")
}

// odek declares the Tasks extension to a server that advertises it, polls
// a task that outlasts one poll until it completes, and renders its result
// as the call's.
func TestTaskPolledToCompletion(t *testing.T) {
	t.Parallel()
	c, ns := taskClient(t, ServerConfig{}, false)
	r, err := taskCall(c, "caps", `{}`, 10*time.Second)
	if err != nil || !strings.Contains(r.Text, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`) {
		t.Fatalf("declared capabilities: %v %v", r, err)
	}
	r, err = taskCall(c, "slow", `{"ms":600}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, "done after ") || strings.Contains(r.Text, "done after 1 polls") {
		t.Errorf("result %q: want more than one poll", r.Text)
	}
	if got := ns.tasks(); got != "working,completed" {
		t.Errorf("task notices %s", got)
	}
	if len(c.Running()) != 0 {
		t.Errorf("still running: %+v", c.Running())
	}
}

// While a task is polled, Running shows it: the heartbeat's view.
func TestRunningShowsThePolledTask(t *testing.T) {
	t.Parallel()
	c, _ := taskClient(t, ServerConfig{}, false)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = taskCall(c, "slow", `{"ms":1500}`, 10*time.Second) })
	defer wg.Wait()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if r := c.Running(); len(r) == 1 && r[0].Polls > 0 {
			if r[0].Tool != "slow" || r[0].Server != "jobs" || !strings.HasPrefix(r[0].TaskID, "task-") || r[0].TaskStatus != "working" {
				t.Errorf("running %+v", r[0])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw the task polled: %+v", c.Running())
		}
	}
}

// A task that asks for input is answered from the configured values with
// tasks/update, once, and then completes; without values odek answers
// decline (an input_declined notice) and the server decides what its task
// does, as with a legacy server's elicitation/create.
func TestTaskInputRequired(t *testing.T) {
	t.Parallel()
	c, ns := taskClient(t, ServerConfig{Elicitation: map[string]json.RawMessage{"name": json.RawMessage(`"ci-bot"`)}}, false)
	r, err := taskCall(c, "ask", `{}`, 10*time.Second)
	if err != nil || !strings.Contains(r.Text, `answered {"action":"accept","content":{"name":"ci-bot"}}`) {
		t.Fatalf("answered task: %v %v", r, err)
	}
	if got := ns.tasks(); got != "input_required,completed" && got != "input_required,working,completed" {
		t.Errorf("task notices %s", got)
	}
	d, dns := taskClient(t, ServerConfig{}, false)
	r, err = taskCall(d, "ask", `{}`, 10*time.Second)
	if err != nil || !strings.Contains(r.Text, `answered {"action":"decline"}`) {
		t.Errorf("declined task: %v %v", r, err)
	}
	dns.mu.Lock()
	defer dns.mu.Unlock()
	declined := 0
	for _, n := range dns.got {
		if n.Kind == NoticeInputDeclined && n.Tool == "ask" {
			declined++
		}
	}
	if declined != 1 {
		t.Errorf("input_declined notices: %d", declined)
	}
}

// Polling counts against timeout_seconds, and the run's own deadline (its
// budget, --max-runtime) ends a task as well: either way odek sends
// tasks/cancel before it gives up, and the error says so.
func TestTaskCancelledWhenTheCallEnds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		timeout int
		caller  time.Duration
		want    string
	}{
		{"timeout_seconds", 1, 10 * time.Second, "no response within 1s (timeout); request cancelled, server kept running (task task-"},
		{"the run's deadline", 30, 700 * time.Millisecond, "mcpclient jobs: tool endless: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, ns := taskClient(t, ServerConfig{TimeoutSeconds: tt.timeout}, false)
			start := time.Now()
			_, err := taskCall(c, "endless", `{}`, tt.caller)
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "odek sent tasks/cancel") {
				t.Fatalf("err = %v", err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %s", took)
			}
			r, err := taskCall(c, "cancelled", `{}`, 10*time.Second)
			if err != nil || !strings.Contains(r.Text, "cancelled: task-") {
				t.Errorf("the server saw no tasks/cancel: %v %v", r, err)
			}
			if got := ns.tasks(); got != "working,cancelled" {
				t.Errorf("task notices %s", got)
			}
		})
	}
}

// A task that fails carries its JSON-RPC error; a task from a server that
// did not advertise the extension is refused (odek never declared it).
func TestTaskFailures(t *testing.T) {
	t.Parallel()
	c, _ := taskClient(t, ServerConfig{}, false)
	_, err := taskCall(c, "broken", `{}`, 10*time.Second)
	if want := "mcpclient jobs: tool broken: task task-"; !strings.HasPrefix(fmt.Sprint(err), want) ||
		!strings.HasSuffix(err.Error(), " failed: MCP error -32603: the build farm is down") {
		t.Errorf("failed task: %v", err)
	}
	d, _ := taskClient(t, ServerConfig{}, true)
	_, err = taskCall(d, "slow", `{"ms":10}`, 10*time.Second)
	if want := "mcpclient jobs: tool slow: answered with a task, but odek did not declare the Tasks extension to this server"; fmt.Sprint(err) != want {
		t.Errorf("undeclared task: %v", err)
	}
}
