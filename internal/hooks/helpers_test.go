package hooks

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/events"
)

// rig is a Runner over real processes, with what it told the operator and
// the events it emitted.
type rig struct {
	r     *Runner
	dir   string
	mu    sync.Mutex
	warns []string
	em    *events.Emitter
	sink  *memSink
}

type memSink struct {
	mu  sync.Mutex
	evs []events.Event
}

func (s *memSink) Write(ev *events.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evs = append(s.evs, *ev)
	return nil
}

// newRig builds a Runner from an operator hooks block (and, when project
// is not "", a project block).
func newRig(t *testing.T, operator, project string, edit ...func(*Options)) *rig {
	t.Helper()
	g := &rig{dir: t.TempDir(), sink: &memSink{}}
	g.em = events.NewEmitter(events.Options{RunID: "run1", Sinks: []events.Sink{g.sink}})
	o := Options{Dir: g.dir, SessionID: func() string { return "sess1" }, PermissionMode: "dontAsk",
		OperatorEnv: append(os.Environ(), "AUDIT_LOG="+filepath.Join(g.dir, "audit.jsonl")),
		ProjectEnv:  []string{"PATH=" + os.Getenv("PATH")},
		Events:      g.em, TempDir: t.TempDir(),
		Warn: func(s string) { g.mu.Lock(); g.warns = append(g.warns, s); g.mu.Unlock() },
	}
	o.Operator = mustParse(t, operator)
	if project != "" {
		o.Project = mustParse(t, project)
	}
	for _, e := range edit {
		e(&o)
	}
	g.r = New(o)
	t.Cleanup(func() { g.r.Close() })
	return g
}

func mustParse(t *testing.T, block string) Config {
	t.Helper()
	if block == "" {
		return nil
	}
	c, _, err := Parse(json.RawMessage(block))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// events returns what the rig emitted, once every event is delivered.
func (g *rig) events(t *testing.T) []events.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := g.em.Close(ctx); err != nil {
		t.Fatal(err)
	}
	g.sink.mu.Lock()
	defer g.sink.mu.Unlock()
	return g.sink.evs
}

func (g *rig) warned() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return strings.Join(g.warns, "\n")
}

// script is the absolute path of a testdata script.
func script(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// needs skips a test whose interpreter is not installed.
func needs(t *testing.T, prog string) {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		t.Skipf("%s is not installed", prog)
	}
}

// hookJSON quotes a command for a hooks block.
func hookJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func shellCall(cmd string) Input {
	return Input{Event: PreToolUse, Tool: "shell", CallID: "c1", Args: json.RawMessage(`{"command":` + hookJSON(cmd) + `,"description":"x"}`)}
}
