package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/builtin"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/risk"
)

// policyGate is the loop's Gate over the session's policy, as the CLI's.
type policyGate struct{ p *policy.Policy }

func (g policyGate) Check(ctx context.Context, c loop.GateCall) error {
	return g.p.Check(ctx, policy.Call{Tool: c.Tool, Args: c.Args, Risk: c.Risk, Assessed: c.Assessed})
}

// loopTurn is a Turn as the run side will do it: odek's loop on the
// session's history with the real built-in tools in dir, the real policy
// (its Asker the agent's), the model at url, the observer wired in.
func loopTurn(t *testing.T, dir, url string) func(context.Context, *fakeSession, string, Observer) (*TurnResult, error) {
	cls, err := risk.New(risk.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var tools []loop.Tool
	for _, b := range builtin.New(builtin.Options{Classifier: cls, Env: []string{"PATH=" + os.Getenv("PATH")}}) {
		tools = append(tools, b)
	}
	reg, err := loop.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	var hist *loop.History
	var pol *policy.Policy
	return func(ctx context.Context, s *fakeSession, prompt string, obs Observer) (*TurnResult, error) {
		if pol == nil {
			if pol, err = policy.New(policy.Options{Asker: s.req.Asker, Dir: dir}); err != nil {
				return nil, err
			}
			hist = loop.NewHistory()
		}
		em := events.NewEmitter(events.Options{RunID: events.NewRunID(), Sinks: []events.Sink{obs}})
		hist.Append(llm.Message{Role: llm.RoleUser, Content: prompt})
		res, runErr := loop.Continue(ctx, loop.Options{
			Model: llm.New(llm.Options{BaseURL: url, APIKey: "k", Stream: true}), ModelName: "m",
			Tools: reg, Gate: policyGate{pol}, MaxIterations: 5, Events: em,
			OnReply: obs.Reply, AfterBatch: obs.Batch,
		}, hist)
		if err := em.Close(context.WithoutCancel(ctx)); err != nil {
			return nil, err
		}
		out := &TurnResult{Termination: "completed", Usage: res.Usage, Answer: res.Answer}
		if runErr != nil {
			out.Termination, out.Error = "error", runErr.Error()
		}
		return out, nil
	}
}

// One turn of the real loop against fakellm: it reads a file, writes one
// and runs a command the policy asks about; the client allows it once.
func TestRealLoopTurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	srv, err := fakellm.Start(&fakellm.Script{Turns: []fakellm.Turn{
		{ReasoningContent: "look first", ToolCalls: []fakellm.ScriptCall{
			{ID: "r1", Name: "read_file", Arguments: args(map[string]string{"path": "main.go"})},
			{ID: "w1", Name: "write_file", Arguments: args(map[string]string{"path": "notes.txt", "content": "seen\n"})},
			{ID: "s1", Name: "shell", Arguments: args(map[string]string{"command": "make --version >/dev/null; echo built", "description": "build"})},
		}},
		{Content: "all done"},
	}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	r := &fakeRunner{turn: loopTurn(t, dir, srv.URL())}
	client := &testClient{answer: optAllowOnce}
	p := serve(t, r, client)
	sid := p.start(t, sdk.ClientCapabilities{})
	resp, err := prompt(t, p, sid, "take notes and build")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q (meta %v)", resp.StopReason, resp.Meta)
	}
	perms := client.permissions()
	if len(perms) != 1 || perms[0].ToolCall.ToolCallId != "s1" {
		t.Fatalf("permission requests %+v, want one for s1", perms)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "seen\n" {
		t.Errorf("notes.txt: %q, %v", b, err)
	}
	status := map[sdk.ToolCallId]sdk.ToolCallStatus{}
	texts := map[sdk.ToolCallId]string{}
	var answer string
	for _, u := range client.got() {
		switch {
		case u.ToolCallUpdate != nil:
			if u.ToolCallUpdate.Status != nil {
				status[u.ToolCallUpdate.ToolCallId] = *u.ToolCallUpdate.Status
			}
			for _, c := range u.ToolCallUpdate.Content {
				if c.Content != nil {
					texts[u.ToolCallUpdate.ToolCallId] = c.Content.Content.Text.Text
				}
			}
		case u.AgentMessageChunk != nil:
			answer = u.AgentMessageChunk.Content.Text.Text
		}
	}
	for _, id := range []sdk.ToolCallId{"r1", "w1", "s1"} {
		if status[id] != sdk.ToolCallStatusCompleted {
			t.Errorf("%s: status %q, want completed", id, status[id])
		}
	}
	if !strings.Contains(texts["s1"], "built") || !strings.Contains(texts["r1"], "package main") {
		t.Errorf("results %q", texts)
	}
	if answer != "all done" {
		t.Errorf("last message %q, want the answer", answer)
	}
}

// session/cancel mid-command in the real loop: the command is stopped and
// the loop reports an interrupt (loop.IsInterrupted), as after Ctrl-C.
func TestRealLoopCancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, err := fakellm.Start(&fakellm.Script{Turns: []fakellm.Turn{
		{ToolCalls: []fakellm.ScriptCall{{ID: "s1", Name: "shell", Arguments: json.RawMessage(`{"command":"make --version >/dev/null; sleep 600","description":"wait"}`)}}},
		{Content: "not reached"},
	}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	interrupted := make(chan bool, 1)
	run := loopTurn(t, dir, srv.URL())
	r := &fakeRunner{turn: func(ctx context.Context, s *fakeSession, prompt string, obs Observer) (*TurnResult, error) {
		res, err := run(ctx, s, prompt, obs)
		interrupted <- err == nil && res.Error != "" && loop.IsInterrupted(context.Cause(ctx))
		return res, err
	}}
	client := &testClient{answer: optAllowOnce, asked: make(chan sdk.RequestPermissionRequest, 1), updated: make(chan struct{}, 1)}
	p := serve(t, r, client)
	sid := p.start(t, sdk.ClientCapabilities{})
	done := make(chan sdk.StopReason, 1)
	go func() {
		resp, _ := prompt(t, p, sid, "wait")
		done <- resp.StopReason
	}()
	<-client.asked
	waitFor(t, client, func() bool { // the command runs: its call is in progress
		for _, u := range client.got() {
			if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusInProgress {
				return true
			}
		}
		return false
	})
	if err := p.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got != sdk.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", got)
	}
	if !<-interrupted {
		t.Error("the loop did not report an interrupt")
	}
}

// waitFor checks cond after each update the client gets until it holds;
// 30 s without it is a hang.
func waitFor(t *testing.T, c *testClient, cond func() bool) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-c.updated:
		case <-timeout:
			t.Fatal("condition not met in 30s")
		}
	}
}
