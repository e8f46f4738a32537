package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/odek-run/odek/internal/untrusted"
)

// Tasks (the io.modelcontextprotocol/tasks extension, declared to a modern
// server that advertises it): a tools/call may be answered with a task
// instead of a result. odek polls it with tasks/get at the server's
// pollIntervalMs (within pollMin..pollMax), answers its input_required
// requests with the same elicitation policy as a call's (tasks/update),
// and sends tasks/cancel when the call ends first: timeout_seconds (the
// deadline of the whole call, polling included), the caller's deadline
// (--max-runtime, the run's budget) or an interrupt.

// Poll bounds: the server's pollIntervalMs is obeyed within them.
const (
	pollMin     = 250 * time.Millisecond
	pollMax     = 30 * time.Second
	pollDefault = time.Second
	// cancelWait bounds the tasks/cancel sent after the call ended.
	cancelWait = 2 * time.Second
	// maxTaskIDLen bounds a task id odek keeps and sends back.
	maxTaskIDLen = 512
)

// Task statuses.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// taskWire is a CreateTaskResult or a tasks/get result.
type taskWire struct {
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage"`
	PollIntervalMs *float64                   `json:"pollIntervalMs"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
	Result         json.RawMessage            `json:"result"`
	Error          json.RawMessage            `json:"error"`
}

// parseTask decodes a task; it needs a task id within bounds and a status.
func parseTask(raw json.RawMessage) (*taskWire, error) {
	var t taskWire
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("malformed task: %w", err)
	}
	switch {
	case t.TaskID == "" || len(t.TaskID) > maxTaskIDLen:
		return nil, fmt.Errorf("task id missing or longer than %d bytes", maxTaskIDLen)
	case t.Status == "":
		return nil, errors.New("task has no status")
	}
	return &t, nil
}

// pollInterval is the wait before the next tasks/get.
func (t *taskWire) pollInterval() time.Duration {
	if t.PollIntervalMs == nil {
		return pollDefault
	}
	d := time.Duration(*t.PollIntervalMs * float64(time.Millisecond))
	return min(max(d, pollMin), pollMax)
}

// awaitTask follows a call that was answered with a task until the task
// ends or the call does. key is the call's entry in c.calls.
func (c *Client) awaitTask(ctx, call context.Context, key int, tool string, left time.Duration, res *callResultWire) (*callResult, error) {
	op := "tool " + tool
	if !c.serverExtension(extensionTasks) {
		return nil, newError(c.name, op, classMCP, errors.New("answered with a task, but odek did not declare the Tasks extension to this server"))
	}
	t, err := parseTask(res.raw)
	if err != nil {
		return nil, newError(c.name, op, classMCP, err)
	}
	id := t.TaskID
	tw := &taskWatch{c: c, key: key, tool: tool, id: id, answered: map[string]bool{}}
	for {
		tw.seen(t)
		switch t.Status {
		case taskCompleted:
			return c.taskResult(tool, t)
		case taskFailed:
			return nil, newError(c.name, op, classMCP, fmt.Errorf("task %s failed: %w", clip(id, 64), taskRPCError(t)))
		case taskCancelled:
			return nil, newError(c.name, op, classMCP, fmt.Errorf("task %s was cancelled by the server: %s", clip(id, 64), untrusted.OneLine(t.StatusMessage, 200)))
		case taskInputRequired:
			if err := tw.answer(call, t); err != nil {
				return nil, c.cancelTask(ctx, call, op, left, id, err)
			}
		case taskWorking:
		default:
			return nil, c.cancelTask(ctx, call, op, left, id, newError(c.name, op, classMCP,
				fmt.Errorf("task %s has unknown status %q", clip(id, 64), clip(t.Status, errUnknownResultTypeMessageSize))))
		}
		if err := sleepCtx(call, t.pollInterval()); err != nil {
			return nil, c.cancelTask(ctx, call, op, left, id, err)
		}
		raw, err := c.request(call, op, methodTasksGet, c.withMeta(map[string]any{"taskId": id}))
		tw.polls++
		if err == nil {
			t, err = parseTask(raw)
			if err == nil && t.TaskID != id {
				err = fmt.Errorf("tasks/get for %s answered task %s", clip(id, 64), clip(t.TaskID, 64))
			}
			if err != nil {
				err = newError(c.name, op, classMCP, err)
			}
		}
		if err != nil {
			return nil, c.cancelTask(ctx, call, op, left, id, err)
		}
	}
}

// taskWatch is what awaitTask remembers of one task between polls.
type taskWatch struct {
	c        *Client
	key      int
	tool, id string
	status   string
	polls    int
	answered map[string]bool // inputRequests keys already answered
}

// seen records a poll's task for Running, and a status change as a notice.
func (w *taskWatch) seen(t *taskWire) {
	msg := untrusted.OneLine(t.StatusMessage, 200)
	w.c.calls.task(w.key, w.id, t.Status, msg, w.polls)
	if t.Status != w.status {
		w.status = t.Status
		w.c.notice(Notice{Kind: NoticeTask, Tool: w.tool, Task: clip(w.id, 64), TaskStatus: untrusted.OneLine(t.Status, 32), Reason: msg})
	}
}

// answer sends tasks/update with an answer to every request for input the
// task has not had one for: the configured values, or a decline (the
// server then decides what its task does), as for a legacy server's
// elicitation/create. Keys are unique over a task's life, so a request
// repeated by later polls is answered once.
func (w *taskWatch) answer(ctx context.Context, t *taskWire) error {
	keys := make([]string, 0, len(t.InputRequests))
	for k := range t.InputRequests {
		if !w.answered[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	responses := map[string]any{}
	for _, k := range keys {
		w.answered[k] = true
		var r inputRequest
		if err := json.Unmarshal(t.InputRequests[k], &r); err != nil {
			responses[k] = map[string]any{"action": "decline"}
			continue
		}
		answer, err := w.c.elicit(ctx, w.tool, r.Method, r.Params)
		if err != nil {
			responses[k] = map[string]any{"action": elicitDecline}
			continue
		}
		responses[k] = answer
	}
	_, err := w.c.request(ctx, "tool "+w.tool, methodTasksUpdate, w.c.withMeta(map[string]any{"taskId": w.id, "inputResponses": responses}))
	return err
}

// taskResult renders a completed task's result as the call's.
func (c *Client) taskResult(tool string, t *taskWire) (*callResult, error) {
	var res callResultWire
	if err := json.Unmarshal(t.Result, &res); err != nil || len(t.Result) == 0 {
		return nil, newError(c.name, "tool "+tool, classMCP, fmt.Errorf("task %s completed without a tool result", clip(t.TaskID, 64)))
	}
	if res.ResultType != "" && res.ResultType != resultTypeComplete {
		return nil, newError(c.name, "tool "+tool, classMCP, fmt.Errorf("task %s completed with resultType %q", clip(t.TaskID, 64), clip(res.ResultType, errUnknownResultTypeMessageSize)))
	}
	return c.render(tool, &res)
}

// taskRPCError is a failed task's JSON-RPC error.
func taskRPCError(t *taskWire) error {
	var w wireError
	if json.Unmarshal(t.Error, &w) != nil {
		return errors.New(untrusted.OneLine(t.StatusMessage, 200))
	}
	return w.toRPCError()
}

// cancelTask tells the server the call no longer waits for task id
// (tasks/cancel, best effort, within cancelWait even after the call's own
// context ended), and returns the call's failure: err, or why the call's
// context ended, naming the task.
func (c *Client) cancelTask(ctx, call context.Context, op string, left time.Duration, id string, err error) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(cancelWait, c.lim.timeout))
	defer cancel()
	_, cerr := c.request(cctx, op, methodTasksCancel, c.withMeta(map[string]any{"taskId": id}))
	status := "cancelled"
	if cerr != nil {
		status = "cancel failed"
	}
	c.notice(Notice{Kind: NoticeTask, Tool: op[len("tool "):], Task: clip(id, 64), TaskStatus: status, Reason: "odek sent tasks/cancel"})
	if call.Err() != nil {
		err = c.callFailure(ctx, call, op, left, call.Err())
	}
	var e *opError
	if errors.As(err, &e) {
		e.Err = fmt.Errorf("%w (task %s: odek sent tasks/cancel)", e.Err, clip(id, 64))
		return e
	}
	return err
}

// sleepCtx waits d, or returns ctx's error when it ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
