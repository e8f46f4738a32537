package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/testbin"
)

// acpClient is an editor's side of `odek acp`: it records the updates and
// answers each permission request with the next of answers (an option id).
type acpClient struct {
	mu      sync.Mutex
	answers []string
	asked   chan sdk.RequestPermissionRequest // each request, when set
	updates []sdk.SessionUpdate
	perms   []sdk.RequestPermissionRequest
}

func (c *acpClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	answer := ""
	if len(c.answers) > 0 {
		answer, c.answers = c.answers[0], c.answers[1:]
	}
	c.mu.Unlock()
	if c.asked != nil {
		c.asked <- p
	}
	if answer == "" {
		<-ctx.Done()
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(answer))}, nil
}

func (c *acpClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	return nil
}

var errNoFS = errors.New("this client offers no file system or terminal")

func (c *acpClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errNoFS
}
func (c *acpClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNoFS
}
func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNoFS
}
func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNoFS
}
func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNoFS
}
func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNoFS
}
func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNoFS
}

// statuses are the last status of each tool call the client was told of.
func (c *acpClient) statuses() map[sdk.ToolCallId]sdk.ToolCallStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[sdk.ToolCallId]sdk.ToolCallStatus{}
	for _, u := range c.updates {
		if u.ToolCall != nil {
			out[u.ToolCall.ToolCallId] = u.ToolCall.Status
		}
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil {
			out[u.ToolCallUpdate.ToolCallId] = *u.ToolCallUpdate.Status
		}
	}
	return out
}

// acpPeer is `odek acp` running over pipes with the SDK's client side on
// the other ends.
type acpPeer struct {
	cmd    *exec.Cmd
	conn   *sdk.ClientSideConnection
	stdin  io.WriteCloser
	exited chan error
	stderr *strings.Builder
	dir    string // the session's working directory
	home   string
}

// startACP starts `odek acp args...` against the model at url with home as
// ODEK_HOME (a new one when ""), and initializes the connection.
func startACP(t *testing.T, url, home string, client sdk.Client, args ...string) *acpPeer {
	t.Helper()
	return startACPEnv(t, url, home, client, nil, args...)
}

// startACPEnv is startACP with env added to odek's environment.
func startACPEnv(t *testing.T, url, home string, client sdk.Client, env []string, args ...string) *acpPeer {
	t.Helper()
	odek := testbin.Build(t, "odek", "./cmd/odek")
	if home == "" {
		home = t.TempDir()
	}
	p := &acpPeer{dir: t.TempDir(), home: home, exited: make(chan error, 1), stderr: &strings.Builder{}}
	p.cmd = exec.Command(odek, append([]string{"acp"}, args...)...)
	p.cmd.Env = []string{"ODEK_HOME=" + home, "HOME=" + home, "ODEK_BASE_URL=" + url, "ODEK_API_KEY=k",
		"ODEK_MODEL=fake", "PATH=" + os.Getenv("PATH")}
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its whole group is checked and killed at the end
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdin, p.cmd.Stdout, p.stdin = inR, outW, inW
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	go func() { p.exited <- p.cmd.Wait() }()
	p.conn = sdk.NewClientSideConnection(client, p.stdin, out)
	p.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			t.Errorf("odek acp did not exit after stdin closed; stderr:\n%s", p.stderr)
		}
	})
	ctx := context.Background()
	if _, err := p.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	return p
}

// newSession opens a session in the peer's directory.
func (p *acpPeer) newSession(t *testing.T) sdk.SessionId {
	t.Helper()
	resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr)
	}
	return resp.SessionId
}

func (p *acpPeer) prompt(t *testing.T, sid sdk.SessionId, text string) sdk.PromptResponse {
	t.Helper()
	resp, err := p.tryPrompt(sid, text)
	if err != nil {
		t.Fatalf("session/prompt: %v; stderr:\n%s", err, p.stderr)
	}
	return resp
}

// tryPrompt is session/prompt, 60 s at most.
func (p *acpPeer) tryPrompt(sid sdk.SessionId, text string) (sdk.PromptResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return p.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// waitRunning waits until the client asked about s1 and was told it runs.
func waitRunning(t *testing.T, p *acpPeer, client *acpClient, prompted <-chan error) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	select {
	case <-client.asked:
	case err := <-prompted:
		t.Fatalf("the turn ended before the permission request: %v; stderr:\n%s", err, p.stderr)
	case <-deadline:
		t.Fatal("no permission request in 30s")
	}
	for client.statuses()["s1"] != sdk.ToolCallStatusInProgress {
		select {
		case <-deadline:
			t.Fatal("the command never ran")
		case <-time.After(10 * time.Millisecond): // polls the client's record
		}
	}
}

// exitedClean waits for odek to exit after its stdin closed, and checks
// that nothing of its process group is left.
func (p *acpPeer) exitedClean(t *testing.T) {
	t.Helper()
	_ = p.stdin.Close()
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil {
			t.Errorf("odek acp: %v; stderr:\n%s", err, p.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("odek acp did not exit after stdin closed; stderr:\n%s", p.stderr)
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, 0); err == nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		t.Error("a process of odek acp's group outlived it")
	}
}

func fakeModel(t *testing.T, turns ...fakellm.Turn) string {
	t.Helper()
	srv, err := fakellm.Start(&fakellm.Script{Turns: turns}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL()
}

func callArgs(v any) json.RawMessage { b, _ := json.Marshal(v); return b }

// A session of `odek acp` reads a file, writes one and runs two commands
// the policy asks about: the client allows the first and rejects the
// second. Then a second odek acp loads the session and replays it.
func TestACPSessionPermissionAndLoad(t *testing.T) {
	t.Parallel()
	url := fakeModel(t,
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{
			{ID: "r1", Name: "read_file", Arguments: callArgs(map[string]string{"path": "main.go"})},
			{ID: "w1", Name: "write_file", Arguments: callArgs(map[string]string{"path": "notes.txt", "content": "seen\n"})},
		}},
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{
			{ID: "s1", Name: "shell", Arguments: callArgs(map[string]string{"command": "make --version >/dev/null; echo built > built.txt", "description": "build"})},
		}},
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{
			{ID: "s2", Name: "shell", Arguments: callArgs(map[string]string{"command": "make --version >/dev/null; echo again > again.txt", "description": "again"})},
		}},
		fakellm.Turn{Content: "all done"},
	)
	client := &acpClient{answers: []string{"allow_once", "reject"}}
	p := startACP(t, url, "", client)
	if err := os.WriteFile(filepath.Join(p.dir, "main.go"), []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sid := p.newSession(t)
	resp := p.prompt(t, sid, "take notes and build")
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn (meta %v)", resp.StopReason, resp.Meta)
	}
	if len(client.perms) != 2 {
		t.Fatalf("%d permission requests, want 2; stderr:\n%s", len(client.perms), p.stderr)
	}
	st := client.statuses()
	for id, want := range map[sdk.ToolCallId]sdk.ToolCallStatus{"r1": sdk.ToolCallStatusCompleted, "w1": sdk.ToolCallStatusCompleted,
		"s1": sdk.ToolCallStatusCompleted, "s2": sdk.ToolCallStatusFailed} {
		if st[id] != want {
			t.Errorf("%s: status %q, want %q", id, st[id], want)
		}
	}
	for name, want := range map[string]bool{"notes.txt": true, "built.txt": true, "again.txt": false} {
		if _, err := os.Stat(filepath.Join(p.dir, name)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", name, err == nil, want)
		}
	}
	p.exitedClean(t)

	// A new odek acp over the same home loads the session and replays it.
	loader := &acpClient{}
	q := startACP(t, url, p.home, loader)
	if _, err := q.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: sid, Cwd: p.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v; stderr:\n%s", err, q.stderr)
	}
	var user, answer bool
	for _, u := range loader.updates {
		user = user || (u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil && u.UserMessageChunk.Content.Text.Text == "take notes and build")
		answer = answer || (u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil && u.AgentMessageChunk.Content.Text.Text == "all done")
	}
	if !user || !answer {
		t.Errorf("replay: prompt %v, answer %v; updates %d", user, answer, len(loader.updates))
	}
	q.exitedClean(t)
}

// session/cancel while a command sleeps: the turn ends cancelled, the
// sleep is gone, and odek exits when the client leaves.
func TestACPCancelMidTool(t *testing.T) {
	t.Parallel()
	marker := sleepMarker()
	url := fakeModel(t,
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{{ID: "s1", Name: "shell",
			Arguments: callArgs(map[string]string{"command": "make --version >/dev/null; sleep " + marker, "description": "wait"})}}},
		fakellm.Turn{Content: "not reached"},
	)
	client := &acpClient{answers: []string{"allow_once"}, asked: make(chan sdk.RequestPermissionRequest, 1)}
	p := startACP(t, url, "", client)
	sid := p.newSession(t)
	done := make(chan sdk.PromptResponse, 1)
	prompted := make(chan error, 1)
	go func() {
		resp, err := p.tryPrompt(sid, "wait")
		prompted <- err
		done <- resp
	}()
	waitRunning(t, p, client, prompted)
	if err := p.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if err := <-prompted; err != nil {
		t.Fatalf("session/prompt: %v; stderr:\n%s", err, p.stderr)
	}
	if resp := <-done; resp.StopReason != sdk.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", resp.StopReason)
	}
	noProcess(t, marker) // the turn ended: the command is gone before the client leaves
	p.exitedClean(t)
}

// A budget that stops the turn is its stop reason: --max-tool-calls 1
// against a model that wants two calls is max_turn_requests.
func TestACPBudgetStop(t *testing.T) {
	t.Parallel()
	url := fakeModel(t,
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{{ID: "r1", Name: "list_dir", Arguments: callArgs(map[string]string{"path": "."})}}},
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{{ID: "r2", Name: "list_dir", Arguments: callArgs(map[string]string{"path": "."})}}},
		fakellm.Turn{Content: "not reached"},
	)
	p := startACP(t, url, "", &acpClient{}, "--max-tool-calls", "1")
	sid := p.newSession(t)
	resp := p.prompt(t, sid, "look twice")
	if resp.StopReason != sdk.StopReasonMaxTurnRequests {
		t.Errorf("stop reason %q, want max_turn_requests (meta %v)", resp.StopReason, resp.Meta)
	}
	p.exitedClean(t)
}

// A client that closes stdin mid-turn (a command running): odek ends the
// turn, exits 0, and leaves no process behind.
func TestACPClientLeavesMidTurn(t *testing.T) {
	t.Parallel()
	marker := sleepMarker()
	url := fakeModel(t,
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{{ID: "s1", Name: "shell",
			Arguments: callArgs(map[string]string{"command": "make --version >/dev/null; sleep " + marker, "description": "wait"})}}},
		fakellm.Turn{Content: "not reached"},
	)
	client := &acpClient{answers: []string{"allow_once"}, asked: make(chan sdk.RequestPermissionRequest, 1)}
	p := startACP(t, url, "", client)
	sid := p.newSession(t)
	prompted := make(chan error, 1)
	go func() {
		_, err := p.tryPrompt(sid, "wait")
		prompted <- err
	}()
	waitRunning(t, p, client, prompted)
	p.exitedClean(t)
	noProcess(t, marker)
}

// sleepMarker is a sleep duration no other process's command line holds.
func sleepMarker() string {
	return fmt.Sprintf("600.%d%d", os.Getpid(), time.Now().UnixNano()%1e9)
}

// noProcess fails when a process's command line still holds marker.
func noProcess(t *testing.T, marker string) {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) {
			t.Errorf("process %s outlived the turn: %q", e.Name(), strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}
