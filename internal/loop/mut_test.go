package loop

import (
	"context"
	"reflect"
	"testing"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
)

// run_started names the sandbox the run was given, or says it is off.
func TestRunStartedNamesTheSandbox(t *testing.T) {
	given := map[string]any{"mode": "workspace-write", "landlock_abi": 4, "seccomp": true, "network": "off"}
	off := map[string]any{"mode": "off", "landlock_abi": 0, "seccomp": false, "network": "on"}
	for _, tc := range []struct {
		opt, want map[string]any
	}{{given, given}, {nil, off}} {
		sink := &memSink{}
		em := events.NewEmitter(events.Options{RunID: "r", Sinks: []events.Sink{sink}})
		m := &scriptedModel{turns: []func(req llm.Request) (*llm.Response, error){answer("done", 1, 1)}}
		if _, err := Run(context.Background(), Options{Model: m, Tools: mustRegistry(t), Events: em, Sandbox: tc.opt}, "go"); err != nil {
			t.Fatal(err)
		}
		_ = em.Close(context.Background())
		var got any
		for _, ev := range sink.evs {
			if ev.Type == events.RunStarted {
				got = ev.Data["sandbox"]
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Sandbox %v: run_started says %v, want %v", tc.opt, got, tc.want)
		}
	}
}
