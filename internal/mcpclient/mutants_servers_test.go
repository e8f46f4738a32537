package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// recheckGate approves everything and is a Rechecker: it records which
// servers it was asked to re-check before a restart.
type recheckGate struct {
	testGate
	mu    sync.Mutex
	asked []string
}

func (g *recheckGate) Recheck(_ context.Context, s ServerSpec) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked = append(g.asked, s.Name)
	return nil
}

func (g *recheckGate) rechecked() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.asked)
}

// setTool returns the set's tool of that qualified name.
func setTool(t *testing.T, set *Set, name string) *ToolAdapter {
	t.Helper()
	for _, tl := range set.Tools() {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// callTool calls a set's tool with a 20 s bound.
func callTool(tl *ToolAdapter) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return tl.Call(ctx, json.RawMessage(`{}`))
}

// Start hands each client the trust its spec earns: a call of an
// idempotent tool that was running when the server died is sent again
// only for an operator server with trust_annotations; a plain server's and
// a project server's (trust_annotations or not) fail with the exit. The
// Gate, being a Rechecker, is asked again about each server's own spec
// before it is restarted (a project server is restarted only so), and the
// model's own retry then reaches it.
func TestStartTrustReachesReplay(t *testing.T) {
	t.Parallel()
	spec := func(name string) ServerSpec { return fixtureSpec(t, name, "-restart_tools") }
	trusted, plain, project := spec("trusted"), spec("plain"), spec("project")
	trusted.Config.TrustAnnotations = true
	project.Config.TrustAnnotations, project.Project, project.Dir = true, true, t.TempDir()
	gate := &recheckGate{}
	set, _, err := startSet(t, StartOptions{Servers: []ServerSpec{trusted, plain, project}, Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := callTool(setTool(t, set, "trusted__crash_once")); err != nil || !strings.Contains(out, "survived in pid") {
		t.Errorf("trusted server: the running call was not sent again: %q, %v", out, err)
	}
	for _, name := range []string{"plain", "project"} {
		tl := setTool(t, set, name+"__crash_once")
		var ee *ExitError
		if out, err := callTool(tl); !errors.As(err, &ee) || ee.Status != "exit status 4" {
			t.Errorf("%s server: the running call was sent again: %q, %v", name, out, err)
		}
		if out, err := callTool(tl); err != nil || !strings.Contains(out, "survived") {
			t.Errorf("%s server: the retry after the restart: %q, %v", name, out, err)
		}
	}
	if got := gate.rechecked(); !slices.Equal(got, []string{"trusted", "plain", "project"}) {
		t.Errorf("the Gate re-checked %v before the restarts, want each server by its own spec", got)
	}
}
