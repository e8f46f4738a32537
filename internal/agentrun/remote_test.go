package agentrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/subagent"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// TestSubagentRunner: the local runner by default; for "kubernetes", the
// odek-kube helper with the operator's settings and the parent's version
// in its environment, or a setup error naming the path when it is missing.
func TestSubagentRunner(t *testing.T) {
	t.Parallel()
	r := &Run{o: Options{Version: "v9.9.9"}}
	if got, err := r.subagentRunner(&config.Config{}); err != nil {
		t.Fatal(err)
	} else if _, ok := got.(*subagent.LocalRunner); !ok {
		t.Errorf("default runner %T", got)
	}
	dir := t.TempDir()
	helper := filepath.Join(dir, "odek-kube")
	cfg := &config.Config{Subagent: config.Subagent{Runner: "kubernetes", Kubernetes: config.Kubernetes{
		Helper: helper, Image: "odek:1", Namespace: "agents", ScheduleTimeout: 90 * time.Second, TTLAfterFinished: 60}}}
	if _, err := r.subagentRunner(cfg); err == nil || !strings.Contains(err.Error(), helper+" is not an executable odek-kube") {
		t.Errorf("missing helper: %v", err)
	}
	if err := os.WriteFile(helper, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := r.subagentRunner(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rr, ok := got.(*subagent.RemoteRunner)
	if !ok || rr.Path != helper {
		t.Fatalf("runner %#v", got)
	}
	var s wire.KubeSettings
	env := strings.Join(rr.Env, "\n")
	for _, kv := range rr.Env {
		if v, ok := strings.CutPrefix(kv, wire.EnvKubeSettings+"="); ok {
			if err := json.Unmarshal([]byte(v), &s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if s.Image != "odek:1" || s.Namespace != "agents" || s.ScheduleTimeoutSeconds != 90 || s.TTLSecondsAfterFinished != 60 ||
		!strings.Contains(env, wire.EnvParentVersion+"=v9.9.9") {
		t.Errorf("helper environment %q", env)
	}
}
