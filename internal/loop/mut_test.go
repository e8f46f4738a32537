package loop

import (
	"context"
	"reflect"
	"testing"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
)

// run_started names the sandbox the run was given, or says it is off: the
// contract's "sandbox" (bool) says whether shell commands are confined, and
// sandbox_policy carries the detail. docs/EXTENSIONS.md: "Fields are never removed
// or re-typed within a /v1 schema", and run_started's data is "model",
// "sandbox" (bool), "max_iterations".
func TestRunStartedNamesTheSandbox(t *testing.T) {
	given := map[string]any{"mode": "workspace-write", "landlock_abi": 4, "seccomp": true, "network": "off"}
	readOnly := map[string]any{"mode": "read-only", "landlock_abi": 6, "seccomp": false, "network": "on"}
	noLandlock := map[string]any{"mode": "workspace-write", "landlock_abi": 0, "seccomp": true, "network": "on"}
	off := map[string]any{"mode": "off", "landlock_abi": 0, "seccomp": false, "network": "on"}
	offWithKernel := map[string]any{"mode": "off", "landlock_abi": 6, "seccomp": false, "network": "on"}
	for _, tc := range []struct {
		opt, want map[string]any
		on        bool
	}{{given, given, true}, {readOnly, readOnly, true}, {noLandlock, noLandlock, false},
		{offWithKernel, offWithKernel, false}, {nil, off, false}} {
		sink := &memSink{}
		em := events.NewEmitter(events.Options{RunID: "r", Sinks: []events.Sink{sink}})
		m := &scriptedModel{turns: []func(req llm.Request) (*llm.Response, error){answer("done", 1, 1)}}
		if _, err := Run(context.Background(), Options{Model: m, Tools: mustRegistry(t), Events: em, Sandbox: tc.opt}, "go"); err != nil {
			t.Fatal(err)
		}
		_ = em.Close(context.Background())
		var got, on any
		for _, ev := range sink.evs {
			if ev.Type == events.RunStarted {
				got, on = ev.Data["sandbox_policy"], ev.Data["sandbox"]
			}
		}
		if on != tc.on {
			t.Errorf("Sandbox %v: run_started sandbox = %#v, want %t", tc.opt, on, tc.on)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Sandbox %v: run_started sandbox_policy says %v, want %v", tc.opt, got, tc.want)
		}
	}
}
