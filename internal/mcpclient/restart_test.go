package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// restartFixture starts the fixture with its restart tools, recording notices.
func restartFixture(t *testing.T, cfg ServerConfig, o Options) (*fixture, *notices) {
	t.Helper()
	ns := &notices{}
	f := &fixture{root: t.TempDir()}
	cfg.Command = fixtureBin
	cfg.Args = []string{"-root", f.root, "-restart_tools"}
	o.Environ, o.OnNotice = testEnviron, ns.add
	var err error
	if f.c, f.tools, err = connectDiscovered(t, "fx", cfg, o); err != nil {
		t.Fatal(err)
	}
	return f, ns
}

func (n *notices) kinds() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, x := range n.got {
		if x.Kind != NoticeProgress {
			out = append(out, fmt.Sprintf("%s:%d/%d", x.Kind, x.Restart, x.Limit))
		}
	}
	return strings.Join(out, ",")
}

// killServer ends the server process from outside, as an OOM killer would.
func killServer(t *testing.T, c *Client) {
	t.Helper()
	cn := c.link()
	st, ok := cn.t.(*stdioTransport)
	if !ok {
		t.Fatalf("transport %T", cn.t)
	}
	st.signal(syscall.SIGKILL)
	select {
	case <-cn.dead:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not notice the kill")
	}
}

// A server killed between calls is started again for the next call, with
// an event saying so; killed again, past restart_limit=1, it stays down and
// every later call says why, at once.
func TestKilledServerIsRestartedOnce(t *testing.T) {
	t.Parallel()
	f, ns := restartFixture(t, ServerConfig{}, Options{})
	if _, err := f.call(t, "echo", `{"text":"before"}`); err != nil {
		t.Fatal(err)
	}
	killServer(t, f.c)
	r, err := f.call(t, "echo", `{"text":"after"}`)
	if err != nil || !strings.Contains(r.Text, "after") {
		t.Fatalf("call after the kill: %v", err)
	}
	if got := ns.kinds(); got != "server_restarted:1/1" {
		t.Errorf("notices %s", got)
	}
	if ns.got[0].Reason != "server exited (signal: killed)" {
		t.Errorf("reason %q", ns.got[0].Reason)
	}
	killServer(t, f.c)
	for range 2 {
		_, err = f.call(t, "echo", `{}`)
		want := "mcpclient fx: restart: server exited (signal: killed); not started again: it was already restarted 1 time(s) this run (restart_limit=1)"
		if fmt.Sprint(err) != want {
			t.Errorf("call past the limit: %v\nwant %s", err, want)
		}
	}
	if got := ns.kinds(); got != "server_restarted:1/1,server_lost:1/1" {
		t.Errorf("notices %s", got)
	}
}

// A call running when the server dies fails as it always did, unless the
// operator trusts the server's hints and the tool is marked read-only or
// idempotent (a hint present and false is no such mark): then it is sent
// again to the restarted server.
func TestCallInFlightIsReplayedOnlyWhenTrustedIdempotent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		trust  bool
		tool   string
		replay bool
	}{
		{"trusted idempotent", true, "crash_once", true},
		{"untrusted idempotent", false, "crash_once", false},
		{"trusted, no hints", true, "crash_once_plain", false},
		{"trusted read-only", true, "crash_once_ro", true},
		{"trusted, hints that say it writes", true, "crash_once_writes", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, ns := restartFixture(t, ServerConfig{}, Options{trustHints: tt.trust})
			r, err := f.call(t, tt.tool, `{}`)
			if tt.replay {
				if err != nil || !strings.Contains(r.Text, "survived in pid") {
					t.Fatalf("replayed call: %v", err)
				}
				if !strings.Contains(ns.got[0].Reason, "the running call of "+tt.tool+" is sent again") {
					t.Errorf("notice %+v", ns.got)
				}
				return
			}
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Status != "exit status 4" {
				t.Fatalf("in-flight call: %v", err)
			}
			if r, err := f.call(t, tt.tool, `{}`); err != nil || !strings.Contains(r.Text, "survived") {
				t.Errorf("the model's retry after the restart: %v", err)
			}
		})
	}
}

// A flapping server that exits on every call exhausts restart_limit; each
// call fails with what happened, and none hangs.
func TestFlappingServerPastItsLimit(t *testing.T) {
	t.Parallel()
	f, ns := restartFixture(t, ServerConfig{RestartLimit: ptr(2)}, Options{})
	var errs []string
	for range 4 {
		_, err := f.call(t, "crash", `{}`)
		errs = append(errs, fmt.Sprint(err))
	}
	for i := range 3 {
		if !strings.Contains(errs[i], "tool crash: server exited (exit status 3)") {
			t.Errorf("call %d: %s", i, errs[i])
		}
	}
	if want := "mcpclient fx: restart: server exited (exit status 3); not started again: it was already restarted 2 time(s) this run (restart_limit=2)"; errs[3] != want {
		t.Errorf("call 4: %s\nwant %s", errs[3], want)
	}
	if got := ns.kinds(); got != "server_restarted:1/2,server_restarted:2/2,server_lost:2/2" {
		t.Errorf("notices %s", got)
	}
}

// A restarted server that now describes a tool otherwise than when it was
// approved does not get that tool's calls; its unchanged tools work.
func TestRestartRefusesAToolThatChanged(t *testing.T) {
	t.Parallel()
	f, _ := restartFixture(t, ServerConfig{}, Options{})
	if err := os.WriteFile(filepath.Join(f.root, "echo_desc"), []byte("Now also deletes things"), 0o600); err != nil {
		t.Fatal(err)
	}
	killServer(t, f.c)
	_, err := f.call(t, "echo", `{}`)
	if want := "mcpclient fx: tool echo: not called: the restarted server changed it (description, schemas or hints) since it was approved"; fmt.Sprint(err) != want {
		t.Errorf("changed tool: %v", err)
	}
	if _, err := f.call(t, "state", `{}`); err != nil {
		t.Errorf("unchanged tool: %v", err)
	}
}

// The Gate's re-check runs before every restart: a refusal keeps the
// server down; a project server without a Rechecker is never restarted.
func TestRestartAsksTheGateAgain(t *testing.T) {
	t.Parallel()
	refuse := func(context.Context) error { return errors.New("odek.json's srv.py changed since it was approved") }
	f, ns := restartFixture(t, ServerConfig{}, Options{recheck: refuse})
	killServer(t, f.c)
	_, err := f.call(t, "echo", `{}`)
	if want := "mcpclient fx: restart: server exited (signal: killed); not started again: odek.json's srv.py changed since it was approved"; fmt.Sprint(err) != want {
		t.Errorf("refused restart: %v", err)
	}
	if got := ns.kinds(); got != "server_lost:0/0" {
		t.Errorf("notices %s", got)
	}
	g, _ := restartFixture(t, ServerConfig{}, Options{project: true})
	killServer(t, g.c)
	if _, err := g.call(t, "echo", `{}`); !strings.Contains(fmt.Sprint(err), "a project server is started again only after the approval gate re-checks it") {
		t.Errorf("project server without a re-check: %v", err)
	}
}

// Calls waiting on a dead server restart it once between them.
func TestConcurrentCallsRestartOnce(t *testing.T) {
	t.Parallel()
	f, ns := restartFixture(t, ServerConfig{RestartLimit: ptr(3)}, Options{})
	killServer(t, f.c)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, errs[i] = f.c.callToolResult(ctx, "echo", json.RawMessage(`{}`))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if got := ns.kinds(); got != "server_restarted:1/3" {
		t.Errorf("notices %s", got)
	}
}
