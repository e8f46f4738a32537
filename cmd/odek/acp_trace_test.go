package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/testbin"
)

// collector is the test OTLP receiver (internal/telemetry/testdata/collector)
// and the spans it received.
type collector struct {
	endpoint string
	mu       sync.Mutex
	spans    []otelSpan
	got      chan struct{} // a value after each batch, when there is room
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	bin, err := testbin.Program("otelcollector", nil, "-C", "internal/telemetry/testdata/collector", "build", "-o", "{out}", ".")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "listening ") {
		t.Fatalf("collector did not start: %q %v", sc.Text(), sc.Err())
	}
	c := &collector{endpoint: "http://" + strings.TrimPrefix(sc.Text(), "listening "), got: make(chan struct{}, 1)}
	go func() {
		for sc.Scan() {
			if kind, body, _ := strings.Cut(sc.Text(), " "); kind == "traces" {
				c.mu.Lock()
				c.spans = append(c.spans, otlpSpans(body)...)
				c.mu.Unlock()
				select {
				case c.got <- struct{}{}:
				default:
				}
			}
		}
	}()
	return c
}

// waitFor waits (30 s at most) until ok holds of the spans received.
func (c *collector) waitFor(t *testing.T, ok func([]otelSpan) bool) []otelSpan {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		spans := append([]otelSpan(nil), c.spans...)
		c.mu.Unlock()
		if ok(spans) {
			return spans
		}
		select {
		case <-c.got:
		case <-deadline:
			t.Fatalf("spans received: %+v", spans)
		}
	}
}

// Each ACP turn is a traced run: its own invoke_agent span, and the MCP
// requests of the session's kept server in that turn's trace (not the
// first turn's, whose tracer has shut down).
func TestACPTurnsTraced(t *testing.T) {
	t.Parallel()
	col := startCollector(t)
	fixture := testbin.Build(t, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	url := fakeModel(t,
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{{ID: "e1", Name: "fx__echo", Arguments: callArgs(map[string]string{"text": "one"})}}},
		fakellm.Turn{Content: "first"},
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{{ID: "e2", Name: "fx__echo", Arguments: callArgs(map[string]string{"text": "two"})}}},
		fakellm.Turn{Content: "second"},
	)
	client := &mcpACPClient{acpClient: &acpClient{}, decide: approveAll}
	p := startACPEnv(t, url, "", client, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.endpoint, "OTEL_BSP_SCHEDULE_DELAY=100"})
	resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fx", Command: fixture, Env: []sdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr)
	}
	for range 2 {
		if r := p.prompt(t, resp.SessionId, "echo"); r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("stop reason %q; stderr:\n%s", r.StopReason, p.stderr)
		}
	}
	count := func(spans []otelSpan, name string) (traces []string) {
		for _, s := range spans {
			if s.Name == name {
				traces = append(traces, s.TraceID)
			}
		}
		return traces
	}
	spans := col.waitFor(t, func(s []otelSpan) bool {
		return len(count(s, "invoke_agent odek")) == 2 && len(count(s, "tools/call echo")) == 2
	})
	agents, calls := count(spans, "invoke_agent odek"), count(spans, "tools/call echo")
	if agents[0] == agents[1] || !(calls[0] == agents[0] && calls[1] == agents[1] || calls[0] == agents[1] && calls[1] == agents[0]) {
		t.Errorf("turn traces %v, MCP call traces %v: want one trace per turn, each call in its turn's", agents, calls)
	}
}
