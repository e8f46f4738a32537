package interop_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
)

// The reference TypeScript server. Only deterministic, offline tools are used:
// get-env (dumps the environment), gzip-file-as-resource (network) and the
// task-based / *-async tools stay out of the suite (INTEROP.md).

// dialEverything spawns server-everything; its first answer takes ~0.3 s.
func dialEverything(ctx context.Context, t *testing.T) *mcpclient.Client {
	t.Helper()
	cfg := mcpclient.ServerConfig{Command: requirePeer(t, peerEverything)}
	return connect(ctx, t, "everything", cfg, mcpclient.Options{})
}

func TestEverythingDiscover(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 20*time.Second)
	tools := discover(ctx, t, dialEverything(ctx, t))
	if len(tools) < 10 {
		t.Errorf("got %d tools, want at least 10 (13 with capabilities {}): %v", len(tools), keys(tools))
	}
	for _, name := range []string{"echo", "get-sum", "get-tiny-image", "get-resource-links"} {
		if _, ok := tools[name]; !ok {
			t.Errorf("tool %q missing: %v", name, keys(tools))
		}
	}
	// Its schemas carry "$schema"; odek must keep them as valid JSON objects.
	if s := string(tools["echo"].InputSchema); !strings.Contains(s, `"message"`) {
		t.Errorf("echo schema lacks its message property: %s", s)
	}
}

func TestEverythingCalls(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 20*time.Second)
	c := dialEverything(ctx, t)
	before := discover(ctx, t, c)
	// Right after initialized the server sends tools/list_changed (and more);
	// give those notifications time to arrive before the calls, then check
	// they disturbed neither the calls nor a second discovery.
	time.Sleep(300 * time.Millisecond)
	if got := call(ctx, t, c, "everything", "echo", `{"message":"hi"}`); got != "Echo: hi" {
		t.Errorf("echo = %q, want %q", got, "Echo: hi")
	}
	if got := call(ctx, t, c, "everything", "get-sum", `{"a":2,"b":3}`); got != "The sum of 2 and 3 is 5." {
		t.Errorf("get-sum = %q", got)
	}
	after, err := c.Discover(ctx)
	if err != nil {
		t.Fatalf("second Discover: %v", err)
	}
	if len(after) != len(before) {
		t.Errorf("second Discover found %d tools, first %d", len(after), len(before))
	}
}

func TestEverythingBadArguments(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 20*time.Second)
	c := dialEverything(ctx, t)
	discover(ctx, t, c)
	// TypeScript servers report bad arguments as an isError result.
	if _, err := c.CallTool(ctx, "get-sum", `{"a":"two"}`); err == nil {
		t.Error("get-sum with bad arguments succeeded")
	}
	if got := call(ctx, t, c, "everything", "echo", `{"message":"still here"}`); got != "Echo: still here" {
		t.Errorf("echo after error = %q", got)
	}
}

func TestEverythingImage(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 20*time.Second)
	c := dialEverything(ctx, t)
	discover(ctx, t, c)
	got := call(ctx, t, c, "everything", "get-tiny-image", `{}`)
	// The PNG travels base64-encoded; "iVBORw0KGgo" is the encoded PNG signature.
	if strings.Contains(got, "iVBORw0KGgo") {
		t.Errorf("image data reached the model text:\n%s", head(got, 400))
	}
	if !strings.Contains(got, "image/png") {
		t.Errorf("no metadata line naming the image's media type:\n%s", head(got, 400))
	}
	if len(got) > 2000 {
		t.Errorf("result is %d bytes; an image should render as a short metadata line", len(got))
	}
	t.Logf("get-tiny-image rendered as:\n%s", got)
}

func TestEverythingResourceLinks(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 20*time.Second)
	c := dialEverything(ctx, t)
	discover(ctx, t, c)
	got := call(ctx, t, c, "everything", "get-resource-links", `{"count":2}`)
	if !strings.Contains(got, "Here are 2 resource links") {
		t.Errorf("text block lost:\n%s", got)
	}
	// resource_link blocks are newer than 2025-03-26; keeping them means their
	// URIs stay visible rather than silently vanishing.
	for _, uri := range []string{"demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2"} {
		if !strings.Contains(got, uri) {
			t.Errorf("resource link %s not rendered:\n%s", uri, got)
		}
	}
	t.Logf("get-resource-links rendered as:\n%s", got)
}

// Progress: trigger-long-running-operation reports each step when the call
// carries a progress token. The reports feed idle_timeout_seconds (a 2 s
// operation reporting every 0.4 s passes a 1 s idle deadline) and never
// timeout_seconds (a 6 s operation reporting every 0.5 s fails a 3 s
// timeout_seconds; 3 s leaves the server's start room on a busy machine).
func TestEverythingProgress(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 30*time.Second)
	var mu sync.Mutex
	var got []mcpclient.Notice
	cfg := mcpclient.ServerConfig{Command: requirePeer(t, peerEverything), TimeoutSeconds: 20, IdleTimeoutSeconds: 1}
	c := connect(ctx, t, "everything", cfg, mcpclient.Options{OnNotice: func(n mcpclient.Notice) {
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
	}})
	discover(ctx, t, c)
	out := call(ctx, t, c, "everything", "trigger-long-running-operation", `{"duration":2,"steps":5}`)
	if !strings.Contains(out, "completed") {
		t.Errorf("result %q", out)
	}
	mu.Lock()
	if len(got) == 0 || got[0].Kind != mcpclient.NoticeProgress || got[0].Tool != "trigger-long-running-operation" {
		t.Errorf("progress notices: %+v", got)
	}
	mu.Unlock()

	cfg.TimeoutSeconds, cfg.IdleTimeoutSeconds = 3, 0
	c2 := connect(ctx, t, "everything", cfg, mcpclient.Options{})
	discover(ctx, t, c2)
	_, err := c2.CallTool(ctx, "trigger-long-running-operation", `{"duration":6,"steps":12}`)
	if err == nil || !strings.Contains(err.Error(), "no response within 3s (timeout)") {
		t.Errorf("progress carried a call past timeout_seconds: err = %v", err)
	}
	if got := call(ctx, t, c2, "everything", "echo", `{"message":"still here"}`); got != "Echo: still here" {
		t.Errorf("echo after the timeout = %q", got)
	}
}

// Resource links: get-resource-links returns resource_link items; odek
// shows each as one line, and mcp_resource_read follows exactly those
// links through the server's resources/read, page by page.
func TestEverythingFollowResourceLinks(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 20*time.Second)
	c := dialEverything(ctx, t)
	discover(ctx, t, c)
	reader := mcpclient.NewResourceReader([]*mcpclient.Client{c})
	if reader == nil {
		t.Fatal("server-everything advertises resources, but no reader was offered")
	}
	read := func(args string) (string, error) { return reader.Call(ctx, json.RawMessage(args)) }
	// Not linked yet: refused.
	if _, err := read(`{"server":"everything","uri":"demo://resource/dynamic/text/2"}`); err == nil || !strings.Contains(err.Error(), "has not linked") {
		t.Fatalf("unlinked uri: err = %v", err)
	}
	out := call(ctx, t, c, "everything", "get-resource-links", `{"count":2}`)
	if !strings.Contains(out, "[resource link: demo://resource/dynamic/text/2") {
		t.Fatalf("links result %q", out)
	}
	page, err := read(`{"server":"everything","uri":"demo://resource/dynamic/text/2"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(page, "resource demo://resource/dynamic/text/2 from everything — bytes 0..") ||
		!strings.Contains(page, `source="mcp:everything:mcp_resource_read"`) || !strings.Contains(page, "Resource 2") {
		t.Errorf("page = %q", page)
	}
	small, err := read(`{"server":"everything","uri":"demo://resource/dynamic/text/2","limit":5}`)
	if err != nil || !strings.Contains(small, "bytes 0..5 of") || !strings.Contains(small, "TRUNCATED") {
		t.Errorf("paged read = %q, %v", small, err)
	}
}
