package interop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/mcpclient"
)

// goPeerTools is what interop/gopeers serves.
var goPeerTools = []string{"add", "big", "env", "exit", "fail", "greet", "pid", "sleep", "weather"}

// dialFunc connects a fresh client to one go-sdk peer, with cfg's limits
// layered over the transport fields the dialer fills in.
type dialFunc func(ctx context.Context, t *testing.T, cfg mcpclient.ServerConfig) *mcpclient.Client

// runGoPeerSuite runs the checks that hold for the go-sdk peer on any transport.
func runGoPeerSuite(t *testing.T, server string, dial dialFunc) {
	runGoPeerSuiteEra(t, server, dial, mcpclient.EraModern, mcpclient.ModernProtocolVersion)
}

// runGoPeerSuiteEra is runGoPeerSuite for a transport whose era is not modern.
func runGoPeerSuiteEra(t *testing.T, server string, dial dialFunc, era mcpclient.Era, version string) {
	t.Run("Discover", func(t *testing.T) { checkGoDiscover(t, server, dial) })
	t.Run("Era", func(t *testing.T) { checkGoEra(t, dial, era, version) })
	t.Run("Structured", func(t *testing.T) { checkGoStructured(t, server, dial) })
	t.Run("Calls", func(t *testing.T) { checkGoCalls(t, server, dial) })
	t.Run("ErrorResult", func(t *testing.T) { checkGoErrorResult(t, server, dial) })
	t.Run("UnknownTool", func(t *testing.T) { checkGoUnknownTool(t, server, dial) })
	t.Run("Truncation", func(t *testing.T) { checkGoTruncation(t, server, dial) })
	t.Run("LongMessage", func(t *testing.T) { checkGoLongMessage(t, server, dial) })
	t.Run("ResponseTooLarge", func(t *testing.T) { checkGoResponseTooLarge(t, dial) })
	t.Run("Concurrent", func(t *testing.T) { checkGoConcurrent(t, server, dial) })
	t.Run("TimeoutThenReuse", func(t *testing.T) { checkGoTimeout(t, server, dial) })
}

func checkGoDiscover(t *testing.T, server string, dial dialFunc) {
	ctx := deadline(t, 10*time.Second)
	tools := discover(ctx, t, dial(ctx, t, mcpclient.ServerConfig{}))
	for _, name := range goPeerTools {
		if _, ok := tools[name]; !ok {
			t.Errorf("tool %q missing; got %v", name, keys(tools))
		}
	}
	// The SDK infers schemas from Go structs; odek must pass them through intact.
	for tool, props := range map[string][]string{"greet": {"name"}, "add": {"a", "b"}, "big": {"n"}} {
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tools[tool].InputSchema, &schema); err != nil {
			t.Fatalf("%s schema: %v\n%s", tool, err, tools[tool].InputSchema)
		}
		if schema.Type != "object" {
			t.Errorf("%s schema type = %q, want object", tool, schema.Type)
		}
		for _, p := range props {
			if _, ok := schema.Properties[p]; !ok {
				t.Errorf("%s schema lacks property %q: %s", tool, p, tools[tool].InputSchema)
			}
		}
	}
	if d := tools["greet"].Description; d != "Greets someone by name." {
		t.Errorf("greet description = %q", d)
	}
}

// checkGoEra: go-sdk v1.8.0 speaks 2026-07-28 over stdio and stateless
// HTTP, where odek must stay modern (it refuses initialize after a
// successful discover); its sessionful HTTP handler lists only the 2025
// revisions in its DiscoverResult, and odek opens it with initialize.
func checkGoEra(t *testing.T, dial dialFunc, era mcpclient.Era, version string) {
	ctx := deadline(t, 10*time.Second)
	c := dial(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	if c.Era() != era || c.ProtocolVersion() != version {
		t.Errorf("era %q version %q, want %s %s", c.Era(), c.ProtocolVersion(), era, version)
	}
}

// checkGoStructured: a typed result arrives as structuredContent only; it
// is validated against the SDK-derived outputSchema and reaches the model.
func checkGoStructured(t *testing.T, server string, dial dialFunc) {
	ctx := deadline(t, 10*time.Second)
	c := dial(ctx, t, mcpclient.ServerConfig{})
	tools := discover(ctx, t, c)
	if len(tools["weather"].OutputSchema) == 0 {
		t.Fatalf("weather has no outputSchema")
	}
	got := call(ctx, t, c, server, "weather", `{"city":"Oslo"}`)
	if !strings.Contains(got, `"city":"Oslo"`) || !strings.Contains(got, `"temp_c":21.5`) {
		t.Errorf("weather = %q", got)
	}
}

func checkGoCalls(t *testing.T, server string, dial dialFunc) {
	ctx := deadline(t, 10*time.Second)
	c := dial(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	tests := []struct{ tool, args, want string }{
		{"greet", `{"name":"odek"}`, "Hello, odek!"},
		{"add", `{"a":2,"b":3}`, "2 + 3 = 5"},
		{"add", `{"a":-7,"b":7}`, "-7 + 7 = 0"},
		{"big", `{"n":12}`, strings.Repeat("x", 12)},
		{"sleep", `{"ms":1}`, "slept 1ms"},
		{"greet", `{"name":"Zoë 🚀"}`, "Hello, Zoë 🚀!"},
	}
	for _, tt := range tests {
		if got := call(ctx, t, c, server, tt.tool, tt.args); got != tt.want {
			t.Errorf("%s %s = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}

func checkGoErrorResult(t *testing.T, server string, dial dialFunc) {
	ctx := deadline(t, 10*time.Second)
	c := dial(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	_, err := c.CallTool(ctx, "fail", `{"message":"disk on fire"}`)
	if err == nil {
		t.Fatal("fail tool: want an error, got success")
	}
	if !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("error lacks the server's text: %v", err)
	}
	var te *mcpclient.ToolError
	if !errors.As(err, &te) {
		t.Errorf("isError result is not a *mcpclient.ToolError: %T %v", err, err)
	}
	// A tool failure is data, not a broken connection.
	if got := call(ctx, t, c, server, "greet", `{"name":"again"}`); got != "Hello, again!" {
		t.Errorf("call after error result = %q", got)
	}
}

func checkGoUnknownTool(t *testing.T, server string, dial dialFunc) {
	ctx := deadline(t, 10*time.Second)
	c := dial(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	// go-sdk answers an unknown tool with JSON-RPC error -32602, not an isError result.
	_, err := c.CallTool(ctx, "no_such_tool", `{}`)
	if err == nil {
		t.Fatal("unknown tool: want an error, got success")
	}
	if !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("error does not name the tool: %v", err)
	}
	if got := call(ctx, t, c, server, "add", `{"a":1,"b":1}`); got != "1 + 1 = 2" {
		t.Errorf("call after protocol error = %q", got)
	}
}

func checkGoTruncation(t *testing.T, server string, dial dialFunc) {
	ctx := deadline(t, 10*time.Second)
	const limit = 2000
	c := dial(ctx, t, mcpclient.ServerConfig{MaxResultChars: limit})
	discover(ctx, t, c)
	if got := call(ctx, t, c, server, "big", fmt.Sprintf(`{"n":%d}`, limit)); got != strings.Repeat("x", limit) {
		t.Errorf("result of exactly max_result_chars was altered: %d chars, tail %q", len(got), tail(got, 80))
	}
	const n = 10000
	got := call(ctx, t, c, server, "big", fmt.Sprintf(`{"n":%d}`, n))
	notice := truncationNotice(server, "big", n, limit)
	want := strings.Repeat("x", limit-utf8.RuneCountInString(notice)) + notice
	if got != want {
		t.Errorf("truncated result:\n got %d runes, tail %q\nwant %d runes, tail %q",
			utf8.RuneCountInString(got), tail(got, 300), utf8.RuneCountInString(want), tail(want, 300))
	}
}

// checkGoLongMessage reads one 5 MB message, far past a default 64 KiB line
// scanner, under the default 10 MiB max_response_bytes.
func checkGoLongMessage(t *testing.T, server string, dial dialFunc) {
	ctx := deadline(t, 20*time.Second)
	c := dial(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	const n = 5_000_000
	got := call(ctx, t, c, server, "big", fmt.Sprintf(`{"n":%d}`, n))
	notice := truncationNotice(server, "big", n, mcpclient.DefaultMaxResultChars)
	if !strings.HasSuffix(got, notice) || utf8.RuneCountInString(got) != mcpclient.DefaultMaxResultChars {
		t.Errorf("5 MB result: got %d chars ending %q; want %d chars ending with the notice",
			utf8.RuneCountInString(got), tail(got, 200), mcpclient.DefaultMaxResultChars)
	}
}

// checkGoResponseTooLarge sends a 2 MB answer at a 1 MiB max_response_bytes.
func checkGoResponseTooLarge(t *testing.T, dial dialFunc) {
	ctx := deadline(t, 20*time.Second)
	const limit = 1 << 20
	c := dial(ctx, t, mcpclient.ServerConfig{MaxResponseBytes: limit})
	discover(ctx, t, c)
	_, err := c.CallTool(ctx, "big", `{"n":2000000}`)
	var tooLarge *mcpclient.ResponseTooLargeError
	if !errors.As(err, &tooLarge) {
		t.Fatalf("2 MB answer at max_response_bytes=%d: got %T %v, want a *mcpclient.ResponseTooLargeError", limit, err, err)
	}
	if tooLarge.Limit != limit || !strings.Contains(err.Error(), "1048576") {
		t.Errorf("error does not name the configured limit %d: %v", limit, err)
	}
}

func checkGoConcurrent(t *testing.T, server string, dial dialFunc) {
	ctx := deadline(t, 20*time.Second)
	c := dial(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	// 16 distinct adds check that answers arriving out of order reach the right
	// caller; 8 parallel sleeps check that calls really are in flight together.
	const adds, sleeps, sleepMS = 16, 8, 400
	var wg sync.WaitGroup
	errs := make(chan error, adds+sleeps)
	start := time.Now()
	for i := range adds + sleeps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool, args, want := "add", fmt.Sprintf(`{"a":%d,"b":1000}`, i), fmt.Sprintf("%d + 1000 = %d", i, i+1000)
			if i >= adds {
				tool, args, want = "sleep", fmt.Sprintf(`{"ms":%d}`, sleepMS), fmt.Sprintf("slept %dms", sleepMS)
			}
			out, err := c.CallTool(ctx, tool, args)
			if err != nil {
				errs <- fmt.Errorf("%s %s: %w", tool, args, err)
				return
			}
			if m := wrapper.FindStringSubmatch(out); m == nil || m[3] != want {
				errs <- fmt.Errorf("%s %s = %q, want body %q", tool, args, head(out, 200), want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// One at a time they take at least sleeps×sleepMS; under one sleep less
	// than that, at least two overlapped. A loaded machine only adds time to
	// the parallel run, which has (sleeps-2)×sleepMS to spare.
	if el := time.Since(start); el >= (sleeps-1)*sleepMS*time.Millisecond {
		t.Errorf("%d parallel %dms sleeps took %v: calls are serialized", sleeps, sleepMS, el)
	}
}

func checkGoTimeout(t *testing.T, server string, dial dialFunc) {
	ctx := deadline(t, 15*time.Second)
	c := dial(ctx, t, mcpclient.ServerConfig{TimeoutSeconds: 1})
	discover(ctx, t, c)
	start := time.Now()
	_, err := c.CallTool(ctx, "sleep", `{"ms":5000}`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow call: want a deadline error, got %v", err)
	}
	// Not before the timeout; and before the 5 s sleep would have answered
	// (a loaded machine may be slow to deliver the deadline).
	if el := time.Since(start); el < 900*time.Millisecond || el >= 5*time.Second {
		t.Errorf("timeout_seconds=1 fired after %v", el)
	}
	// go-sdk answers the cancelled request late; that answer must be dropped and
	// the connection reused.
	if got := call(ctx, t, c, server, "greet", `{"name":"later"}`); got != "Hello, later!" {
		t.Errorf("call after timeout = %q", got)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
