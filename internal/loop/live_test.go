package loop

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/llm"
)

// shellLike is a tool that describes its calls and records an exit code,
// as the built-in shell does; run does the work.
type shellLike struct {
	run func(ctx context.Context) (string, error)
}

func (shellLike) Name() string            { return "shell" }
func (shellLike) Description() string     { return "runs a command" }
func (shellLike) Schema() json.RawMessage { return nil }
func (s shellLike) Call(ctx context.Context, args json.RawMessage) (string, error) {
	return s.run(ctx)
}
func (shellLike) DescribeCall(args json.RawMessage) (string, string) {
	var a struct{ Command string }
	_ = json.Unmarshal(args, &a)
	return "command", a.Command
}

// hangs until its context ends, as a hung command whose process odek kills.
func hangs(ctx context.Context) (string, error) {
	<-ctx.Done()
	return "", context.Cause(ctx)
}

// A tool call that shows no sign of life for the stall timeout ends the run:
// stalled, naming the call, with a partial summary (the model is well).
func TestStallInAToolEndsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := turns(callTools(10, 2, tc("call_ab12", "shell", `{"command":"npm test"}`)), answer("what was done", 10, 2))
		o := Options{Model: m, Tools: mustRegistry(t, shellLike{hangs}), StallTimeout: 600 * time.Second}
		start := time.Now()
		res, evs, err := runWithEvents(t, o, "test it")
		if took := time.Since(start); took != 600*time.Second {
			t.Errorf("the run ended after %v, want the stall timeout", took)
		}
		var se *liveness.StallError
		if !errors.As(err, &se) || se.Activity.CallID != "call_ab12" {
			t.Fatalf("err %v", err)
		}
		want := `stalled 600s in shell "npm test" (call_ab12)`
		if !strings.HasPrefix(err.Error(), want) || events.ErrorClass(err) != errclass.Stalled {
			t.Errorf("err %q (%s), want %q…", err, events.ErrorClass(err), want)
		}
		if res.Answer != StallMarker+"\n\nwhat was done" || res.ToolCalls.Failed != 1 {
			t.Errorf("answer %q, %+v", res.Answer, res.ToolCalls)
		}
		failed := eventsOf(evs, events.ToolCallFailed)
		if len(failed) != 1 || failed[0].Data["error_class"] != errclass.Stalled || failed[0].Data["command"] != "npm test" {
			t.Errorf("tool_call_failed %+v", failed)
		}
		types := typesOf(evs)
		if n := len(types); types[n-2] != events.StallDetected || types[n-1] != events.RunFailed {
			t.Fatalf("the run ends %v", types[n-3:])
		}
		sd := eventsOf(evs, events.StallDetected)[0]
		if sd.Tool != "shell" || sd.Data["call_id"] != "call_ab12" || sd.Data["detail"] != "npm test" || sd.Data["limit_ms"] != int64(600000) {
			t.Errorf("stall_detected %+v", sd)
		}
		if lastEvent(t, evs).Data["error_class"] != errclass.Stalled {
			t.Errorf("run_failed %+v", lastEvent(t, evs).Data)
		}
	})
}

// A model call that hangs (no chunk ever) stalls too; the model is what
// hangs, so no summary is asked of it.
func TestStallInTheModelEndsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hung := modelFunc(func(ctx context.Context, req llm.Request) (*llm.Response, error) {
			<-ctx.Done()
			return nil, context.Cause(ctx)
		})
		res, err := Run(context.Background(), Options{Model: hung, StallTimeout: time.Minute}, "go")
		if !strings.HasPrefix(errText(err), "stalled 60s in model call (iteration 1)") || res.Answer != "" {
			t.Errorf("err %v, answer %q", err, res.Answer)
		}
	})
}

type modelFunc func(ctx context.Context, req llm.Request) (*llm.Response, error)

func (f modelFunc) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	return f(ctx, req)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Slow but live: a command that prints a line every 40 s for 10 minutes,
// a model that streams a chunk every 50 s: longer than the stall timeout
// of 60 s, never silent that long. The run completes.
func TestSlowButLiveIsNotStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		printing := shellLike{func(ctx context.Context) (string, error) {
			for range 15 {
				time.Sleep(40 * time.Second)
				liveness.Touch(ctx) // a line of output
			}
			return "exit code: 0", nil
		}}
		calls := 0
		streaming := modelFunc(func(ctx context.Context, req llm.Request) (*llm.Response, error) {
			for range 5 {
				time.Sleep(50 * time.Second)
				liveness.Touch(ctx) // a chunk
			}
			if calls++; calls == 1 {
				return callTools(10, 2, tc("c1", "shell", `{"command":"make"}`))(req)
			}
			return answer("built", 10, 2)(req)
		})
		start := time.Now()
		res, err := Run(context.Background(), Options{Model: streaming, Tools: mustRegistry(t, printing), StallTimeout: time.Minute}, "build")
		if err != nil || res.Answer != "built" {
			t.Fatalf("err %v, answer %q", err, res.Answer)
		}
		if took := time.Since(start); took < 10*time.Minute {
			t.Errorf("the run took %v", took)
		}
	})
}

// run_heartbeat comes every Heartbeat while the run is alive: the phase,
// what runs, the time since the last progress, the usage so far.
func TestHeartbeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := shellLike{func(ctx context.Context) (string, error) {
			time.Sleep(95 * time.Second)
			return "exit code: 0", nil
		}}
		m := turns(callTools(100, 20, tc("call_1", "shell", `{"command":"sleep 95"}`)), answer("done", 10, 2))
		res, evs, err := runWithEvents(t, Options{Model: m, Tools: mustRegistry(t, slow), Heartbeat: 30 * time.Second}, "go")
		if err != nil || res.Answer != "done" {
			t.Fatalf("err %v", err)
		}
		beats := eventsOf(evs, events.RunHeartbeat)
		if len(beats) != 3 {
			t.Fatalf("%d heartbeats in a 95 s run at 30 s", len(beats))
		}
		for k, b := range beats {
			d := b.Data
			running, _ := d["running"].([]map[string]any)
			if d["phase"] != "tool" || len(running) != 1 || running[0]["call_id"] != "call_1" || running[0]["detail"] != "sleep 95" ||
				running[0]["running_ms"] != int64((k+1)*30000) || d["since_progress_ms"] != int64((k+1)*30000) ||
				d["elapsed_ms"] != int64((k+1)*30000) || d["input_tokens"] != int64(100) || d["output_tokens"] != int64(20) || b.Iteration != 1 {
				t.Errorf("heartbeat %d: %+v", k, d)
			}
		}
		if types := typesOf(evs); types[len(types)-1] != events.RunCompleted {
			t.Errorf("a heartbeat after the end: %v", types)
		}
	})
}

// The time a call waits at the Gate (a prompt) is not the call's duration;
// the event and the progress line say what the call ran and how it exited.
func TestCallReportsWhatItDid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		exits := shellLike{func(ctx context.Context) (string, error) {
			time.Sleep(4200 * time.Millisecond)
			liveness.SetExitCode(ctx, 1)
			return "exit code: 1\nFAIL", nil
		}}
		broken := funcTool{"read_file", func(context.Context, json.RawMessage) (string, error) {
			return "", errors.New("open secret.txt: no such file\nsecond line\n")
		}}
		var mu sync.Mutex
		var done []Progress
		m := turns(callTools(10, 2, tc("c1", "shell", `{"command":"go test ./..."}`)), callTools(10, 2, tc("c2", "read_file", `{}`)), answer("ok", 1, 1))
		o := Options{Model: m, Tools: mustRegistry(t, exits, broken), Gate: slowGate{time.Minute},
			Progress: func(p Progress) {
				if p.Kind == ProgressToolDone {
					mu.Lock()
					done = append(done, p)
					mu.Unlock()
				}
			}}
		_, evs, err := runWithEvents(t, o, "go")
		if err != nil {
			t.Fatal(err)
		}
		c := eventsOf(evs, events.ToolCallCompleted)
		if len(c) != 1 || c[0].Data["duration_ms"] != int64(4200) || c[0].Data["command"] != "go test ./..." || c[0].Data["exit_code"] != 1 {
			t.Errorf("tool_call_completed %+v", c)
		}
		f := eventsOf(evs, events.ToolCallFailed)
		if len(f) != 1 || f[0].Data["error"] != "open secret.txt: no such file second line" || f[0].Data["duration_ms"] != int64(0) {
			t.Errorf("tool_call_failed %+v", f)
		}
		if len(done) != 2 || done[0].Detail != "go test ./..." || !done[0].HasExit || done[0].ExitCode != 1 || done[0].Duration != 4200*time.Millisecond ||
			done[1].Error != "open secret.txt: no such file second line" {
			t.Errorf("progress %+v", done)
		}
	})
}

// slowGate takes d to decide, as a person at a prompt does, then allows.
type slowGate struct{ d time.Duration }

func (g slowGate) Check(ctx context.Context, c GateCall) error {
	done := liveness.Prompt(ctx)
	defer done()
	time.Sleep(g.d)
	return nil
}
