package mcpclient

import (
	"strings"
	"sync"
	"testing"
)

// A server marked required: false that fails to start (a missing program)
// or to open (it exits at once) is skipped with a warning and a notice,
// and the run keeps the other servers' tools; a required one (the
// default) still fails Start.
func TestOptionalServerFailureIsSkipped(t *testing.T) {
	t.Parallel()
	no := false
	missing := ServerSpec{Name: "gone", Config: ServerConfig{Command: "/nonexistent/mcp-server", Required: &no}}
	exits := ServerSpec{Name: "crashy", Config: ServerConfig{Command: "/bin/sh", Args: []string{"-c", "echo boom >&2; exit 7"}, Required: &no}}
	var mu sync.Mutex
	var got []Notice
	set, warns, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "ok"), missing, exits},
		Client: Options{OnNotice: func(n Notice) { mu.Lock(); got = append(got, n); mu.Unlock() }}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if n := len(set.Clients()); n != 1 || set.Clients()[0].Name() != "ok" {
		t.Errorf("clients: %d", n)
	}
	joined := strings.Join(warns, "\n")
	for _, want := range []string{
		`mcp server "crashy": `, "exit status 7", "boom",
		`mcp server "gone": mcpclient gone: start /nonexistent/mcp-server: `,
		"it is not required (required: false), so the run goes on without its tools",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].Kind != NoticeServerSkipped || got[1].Kind != NoticeServerSkipped ||
		got[0].Server != "crashy" || got[1].Server != "gone" || !strings.Contains(got[0].Reason, "exit status 7") {
		t.Errorf("notices %+v", got)
	}

	missing.Config.Required = nil
	if _, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "ok"), missing}}); err == nil ||
		!strings.Contains(err.Error(), `mcp server "gone"`) {
		t.Errorf("a required server that fails to start: %v", err)
	}
}
