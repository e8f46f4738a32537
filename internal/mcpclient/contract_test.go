package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var wrapRE = regexp.MustCompile(`(?s)^<untrusted_content_([0-9a-f]{16}) source="([^"]*)">\n(.*)\n</untrusted_content_([0-9a-f]{16})>$`)

// unwrap checks the untrusted fence and returns its body.
func unwrap(t *testing.T, s, source string) string {
	t.Helper()
	m := wrapRE.FindStringSubmatch(s)
	if m == nil || m[1] != m[4] || m[2] != source {
		t.Fatalf("not wrapped as untrusted from %q: %.200q", source, s)
	}
	return m[3]
}

func TestContractTools(t *testing.T) {
	t.Parallel()
	f := startFixture(t, ServerConfig{})
	notice := "\n[odek: result truncated — server \"fx\" tool \"large_result\" produced 300000 chars, exceeding the configured max_result_chars=200000; the full result is available via the retained artifact references, if any]"
	tests := []struct {
		tool, args string
		want       []string // substrings of the unwrapped text
		artifacts  int
		truncated  bool
	}{
		{"echo", `{"msg":"hi","n":1}`, []string{`{"msg":"hi","n":1}`}, 0, false},
		{"large_result", `{"n":300000}`, []string{notice}, 0, true},
		{"artifact_result", `{}`, []string{"Analyzed 1284 test cases: 1280 passed, 4 failed.\n- artifact \"report-1\" (application/xml, 39 bytes, sha256 ", "…): Full CI test results (JUnit XML)"}, 1, false},
		{"slow", `{"ms":10}`, []string{"slept 10 ms"}, 0, false},
		{"garbage", `{}`, []string{"after garbage"}, 0, false},
		{"wrong_ids", `{}`, []string{"right id"}, 0, false},
		{"flood", `{"n":20000}`, []string{"after flood"}, 0, false},
		{"server_requests", `{}`, []string{`ping={} roots={"code":-32601,"message":"Method not found"} elicit={"action":"decline"}`}, 0, false},
		{"mixed_content", `{}`, []string{"caption\n[image content: image/png, 1234 bytes base64 omitted]\n[resource link: file:///x/y.txt (text/plain) y]\n[embedded resource: mem://z (application/octet-stream), 4 bytes base64 omitted]"}, 0, false},
		{"state", `{}`, []string{`"initialized":true`}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			r, err := f.call(t, tc.tool, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			body := unwrap(t, r.Text, "mcp:fx:"+tc.tool)
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("result %.300q lacks %q", body, w)
				}
			}
			if r.ArtifactCount != tc.artifacts || r.Truncated != tc.truncated {
				t.Errorf("artifacts=%d truncated=%v, want %d %v", r.ArtifactCount, r.Truncated, tc.artifacts, tc.truncated)
			}
			if tc.truncated && len([]rune(body)) != 200000 {
				t.Errorf("truncated body has %d runes, want 200000", len([]rune(body)))
			}
		})
	}
}

// A result's resource_link is remembered, so that mcp_resource_read may
// follow it; a URI the server did not link to is not.
func TestResultResourceLinksAreRemembered(t *testing.T) {
	f := startFixture(t, ServerConfig{})
	if _, err := f.call(t, "mixed_content", `{}`); err != nil {
		t.Fatal(err)
	}
	if !f.c.links.has("file:///x/y.txt") {
		t.Errorf("the result's resource_link was not remembered: %q", f.c.links.uris)
	}
	if f.c.links.has("mem://z") {
		t.Error("an embedded resource's URI was remembered as a link")
	}
}

func TestContractErrors(t *testing.T) {
	f := startFixture(t, ServerConfig{})
	tests := []struct {
		tool, args string
		want       string // regexp over err.Error()
	}{
		{"error_result", `{}`, `^mcpclient fx: tool error_result returned error: <untrusted_content_[0-9a-f]{16} source="mcp:fx:error_result">\nboom: the tool failed\n</untrusted_content_[0-9a-f]{16}>$`},
		{"rpc_error", `{}`, `^mcpclient fx: tools/call: MCP error 0: go-sdk style error$`},
		{"bad_artifact", `{"kind":"outside"}`, `^mcpclient fx: tool bad_artifact: artifact ref rejected: artifact "bad-1": `},
		{"bad_artifact", `{"kind":"traversal"}`, `^mcpclient fx: tool bad_artifact: artifact ref rejected: artifact "bad-1": `},
		{"bad_artifact", `{"kind":"hash"}`, `^mcpclient fx: tool bad_artifact: artifact ref rejected: artifact "bad-1": .*sha256`},
		{"bad_artifact", `{"kind":"size"}`, `^mcpclient fx: tool bad_artifact: artifact ref rejected: artifact "bad-1": .*size`},
		{"bad_artifact", `{"kind":"scheme"}`, `^mcpclient fx: tool bad_artifact: artifact ref rejected: artifact "bad-1": `},
		{"bad_artifact", `{"kind":"broken_json"}`, `^mcpclient fx: tool bad_artifact: malformed odek.tool-result/v1 envelope: not valid JSON: unexpected end of JSON input$`},
	}
	for _, tc := range tests {
		t.Run(tc.tool+tc.args, func(t *testing.T) {
			_, err := f.call(t, tc.tool, tc.args)
			if err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Fatalf("err = %v, want match %s", err, tc.want)
			}
			if c := classOf(err); c != classMCP {
				t.Errorf("class %q, want mcp_error", c)
			}
			if strings.Contains(err.Error(), "/etc/hostname") || strings.Contains(err.Error(), f.root) {
				t.Errorf("error leaks a path: %v", err)
			}
		})
	}
}

func classOf(err error) string {
	var c interface{ ErrorClass() string }
	if errors.As(err, &c) {
		return c.ErrorClass()
	}
	return ""
}

func TestSecretsStripped(t *testing.T) {
	f := startFixture(t, ServerConfig{Env: map[string]string{"LOG_LEVEL": "info", "MY_SECRET": "s3", "db-password": "x", "HOME": ""}})
	r, err := f.call(t, "echo_env", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	body := unwrap(t, r.Text, "mcp:fx:echo_env")
	for _, want := range []string{"LOG_LEVEL=info", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"} {
		if !strings.Contains(body, want) {
			t.Errorf("child env lacks %s:\n%s", want, body)
		}
	}
	for _, bad := range []string{"OPENAI_API_KEY", "sk-secret", "GITHUB_TOKEN", "FOO=", "MY_SECRET", "s3", "db-password", "HOME="} {
		if strings.Contains(body, bad) {
			t.Errorf("child env contains %s:\n%s", bad, body)
		}
	}
	if w := strings.Join(f.c.Warnings(), "\n"); !strings.Contains(w, `env "MY_SECRET"`) || !strings.Contains(w, `env "db-password"`) {
		t.Errorf("warnings = %q", w)
	}
}

func TestTimeoutCancelsAndReuses(t *testing.T) {
	t.Parallel()
	f := startFixture(t, ServerConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := f.c.callToolResult(ctx, "hang", nil)
	if !errors.Is(err, context.DeadlineExceeded) || classOf(err) != classDeadline {
		t.Fatalf("err = %v (class %q), want a deadline error", err, classOf(err))
	}
	// The message names the time the request had: what was left of ctx's
	// 300 ms when it started, in milliseconds.
	var te *timeoutError
	if !errors.As(err, &te) || te.Timeout <= 0 || te.Timeout > 300*time.Millisecond {
		t.Errorf("timeout error %+v", te)
	}
	if !regexp.MustCompile(`^mcpclient fx: tool hang: no response within \d+ms \(timeout\)`).MatchString(err.Error()) {
		t.Errorf("message %q", err)
	}
	r, err := f.call(t, "state", `{}`)
	if err != nil {
		t.Fatalf("server not reusable after timeout: %v", err)
	}
	if body := unwrap(t, r.Text, "mcp:fx:state"); !strings.Contains(body, `"cancelled":["`) {
		t.Errorf("server saw no notifications/cancelled: %s", body)
	}
}

func TestDefaultTimeoutApplies(t *testing.T) {
	t.Parallel()
	f, err := connectFixtureTimed(t, ServerConfig{}, timings{request: 250 * time.Millisecond})
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	start := time.Now()
	_, err = f.call(t, "hang", `{}`)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}

var tooLargeRE = regexp.MustCompile(`^mcpclient fx: tool (\w+): response line exceeded configured max_response_bytes limit of 1048576 bytes \(observed at least (\d+) bytes\); connection closed$`)

func TestOversizeLineClosesConnection(t *testing.T) {
	for _, tool := range []string{"huge_line", "endless_line"} {
		t.Run(tool, func(t *testing.T) {
			f := startFixture(t, ServerConfig{MaxResponseBytes: 1 << 20})
			slowErr := make(chan error, 1)
			go func() { _, err := f.call(t, "slow", `{"ms":3000}`); slowErr <- err }()
			waitPending(t, f.c, 1) // the slow call is in flight when the connection dies
			_, err := f.call(t, tool, `{"n":2097152}`)
			m := tooLargeRE.FindStringSubmatch(fmt.Sprint(err))
			if m == nil || m[1] != tool || m[2] < "1048577" && len(m[2]) <= 7 {
				t.Fatalf("err = %v", err)
			}
			if e := <-slowErr; !tooLargeRE.MatchString(fmt.Sprint(e)) || !strings.Contains(e.Error(), "tool slow:") {
				t.Errorf("pending call err = %v", e)
			}
			start := time.Now()
			// Fast: the closed connection fails it at once, not its 60 s timeout.
			if _, err := f.call(t, "echo", `{}`); err == nil || time.Since(start) > 5*time.Second {
				t.Errorf("later call: err=%v after %v, want fast failure", err, time.Since(start))
			}
		})
	}
}

// TestMemoryBounded proves an over-limit line is never buffered past the limit.
func TestMemoryBounded(t *testing.T) {
	tests := []struct {
		name     string
		limit    int64
		n        int
		maxAlloc uint64
	}{
		{"64MiB limit", MaxResponseBytesCeiling, MaxResponseBytesCeiling + 2<<20, MaxResponseBytesCeiling + 16<<20},
		{"20MiB line, default limit", 0, 20 << 20, 16 << 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := startFixture(t, ServerConfig{MaxResponseBytes: tc.limit})
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := f.call(t, "huge_line", fmt.Sprintf(`{"n":%d}`, tc.n))
			runtime.ReadMemStats(&after)
			var tl *ResponseTooLargeError
			if !errors.As(err, &tl) {
				t.Fatalf("err = %v, want ResponseTooLargeError", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > tc.maxAlloc {
				t.Errorf("allocated %d MiB for a %d MiB line, bound %d MiB", grew>>20, tc.n>>20, tc.maxAlloc>>20)
			}
		})
	}
}

func TestCrashMidCall(t *testing.T) {
	f := startFixture(t, ServerConfig{RestartLimit: ptr(0)})
	_, err := f.call(t, "crash", `{}`)
	want := regexp.MustCompile(`^mcpclient fx: tool crash: server exited \(exit status 3\); stderr tail: panic: crashing on purpose in the middle of a call$`)
	if !want.MatchString(fmt.Sprint(err)) || classOf(err) != classMCP {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(f.stderr.String(), "[fx] panic: crashing on purpose") {
		t.Errorf("stderr not forwarded with prefix: %q", f.stderr.String())
	}
	if !strings.Contains(f.c.StderrTail(), "crashing on purpose") {
		t.Errorf("StderrTail = %q", f.c.StderrTail())
	}
	// restart_limit 0: never started again (restart_test.go has the rest).
	_, err = f.call(t, "echo", `{}`)
	if want := "mcpclient fx: restart: server exited (exit status 3); not started again (restart_limit=0)"; fmt.Sprint(err) != want {
		t.Errorf("call after crash: %v\nwant %s", err, want)
	}
}

func TestConcurrentCallsMultiplexed(t *testing.T) {
	t.Parallel()
	f := startFixture(t, ServerConfig{})
	var wg sync.WaitGroup
	start := time.Now()
	errs := make(chan error, 60)
	for i := range 50 {
		wg.Go(func() {
			arg := fmt.Sprintf(`{"i":%d}`, i)
			r, err := f.call(t, "echo", arg)
			if err == nil && !strings.Contains(r.Text, "\n"+arg+"\n") {
				err = fmt.Errorf("call %d got %q", i, r.Text)
			}
			errs <- err
		})
	}
	for range 10 {
		wg.Go(func() { _, err := f.call(t, "slow", `{"ms":300}`); errs <- err })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	// One at a time they take at least 3 s; under 2.7 s at least two overlapped.
	if d := time.Since(start); d >= 2700*time.Millisecond {
		t.Errorf("10 parallel 300 ms calls took %v: not multiplexed", d)
	}
}

func TestDiscoverModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flags   []string
		wantErr string // regexp; "" = success
		tools   int
	}{
		{nil, "", 18},
		{[]string{"-pages", "5"}, "", 18},
		{[]string{"-noise"}, "", 18},
		{[]string{"-big_schema"}, "", 19},
		{[]string{"-version", "2025-06-18"}, "", 18},
		{[]string{"-invalid_tool"}, `^mcpclient fx: tools/list: invalid tool name "bad__name": must be 1-64 characters of \[A-Za-z0-9_-\] without "__"; server rejected$`, 0},
		{[]string{"-version", "1999-01-01"}, `^mcpclient fx: initialize: server answered unsupported protocol version "1999-01-01" \(odek speaks 2025-03-26; .*disconnected$`, 0},
		{[]string{"-exit_now"}, `^mcpclient fx: server/discover: .*exit status 2.*unknown option --frobnicate`, 0},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			f, err := connectFixture(t, ServerConfig{}, tc.flags...)
			if tc.wantErr != "" {
				if err == nil || !regexp.MustCompile(tc.wantErr).MatchString(err.Error()) {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(f.tools) != tc.tools {
				t.Fatalf("err=%v tools=%d, want %d", err, len(f.tools), tc.tools)
			}
			for _, td := range f.tools {
				if !json.Valid(td.InputSchema) {
					t.Errorf("tool %s schema invalid", td.Name)
				}
			}
		})
	}
}

func TestCloseWaitsForInflightThenExits(t *testing.T) {
	t.Parallel()
	f := startFixture(t, ServerConfig{})
	done := make(chan error, 1)
	go func() { _, err := f.call(t, "slow", `{"ms":300}`); done <- err }()
	waitPending(t, f.c, 1)
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("in-flight call failed on Close: %v", err)
	}
	if err := f.c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := f.call(t, "echo", `{}`); !errors.Is(err, errClosed) {
		t.Errorf("call after Close: %v", err)
	}
}

func TestCloseKillsStubbornServer(t *testing.T) {
	t.Parallel()
	c, err := Connect(context.Background(), "stubborn", ServerConfig{Command: "/bin/sh",
		Args: []string{"-c", "trap '' TERM HUP; sleep 30 & while :; do sleep 1; done"}},
		Options{Environ: testEnviron, timings: timings{exit: 200 * time.Millisecond, term: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	pid := c.conn.t.(*stdioTransport).proc.Pid()
	start := time.Now()
	_ = c.Close()
	if d := time.Since(start); d > 10*time.Second { // not the 30 s the server would take
		t.Errorf("Close took %v", d)
	}
	// Killed grandchildren are reparented and may linger as zombies until
	// reaped (on a loaded machine that took over 2 s), so poll for the group
	// to vanish.
	if !groupGone(pid) {
		err := syscall.Kill(-pid, 0)
		out, _ := exec.Command("ps", "-eo", "pid,pgid,stat,comm").Output()
		t.Errorf("process group %d still alive after Close: %v\n%s", pid, err, out)
	}
}
