package mcpclient

import (
	"context"
	"io"
	"mime"
	"net/http"
	"time"
)

// The standalone stream (Streamable HTTP of the 2025 revisions): after
// initialize, odek opens a GET on the MCP endpoint, where the server may
// send requests and notifications that belong to no call (a ping, an
// elicitation/create between calls). They reach the same reader as the
// call streams, bounded the same way (max_response_bytes per message), and
// are answered the same way (a POST). A server that does not offer the
// stream answers 405 and is not asked again; a stream that ends is opened
// again after listenPause, at most listenReopens times. Modern servers
// have no such stream (2026-07-28 removed it) and are never asked.

// Standalone stream timings; vars so tests can shorten them.
var (
	listenPause   = time.Second
	listenReopens = 5
)

// listen opens the standalone stream once per transport; later calls (a
// session renewed after a restart) do nothing while it runs.
func (t *httpTransport) listen() {
	t.mu.Lock()
	if t.listenEnd != nil || t.closed || t.modern {
		t.mu.Unlock()
		return
	}
	end := make(chan struct{})
	t.listenEnd = end
	t.mu.Unlock()
	ctx, done, ok := t.begin(context.Background(), 0)
	if !ok {
		return // closed: no later listen gets past t.closed
	}
	go func() {
		defer done()
		defer func() {
			t.mu.Lock()
			t.listenEnd = nil
			t.mu.Unlock()
			close(end)
		}()
		for i := 0; i <= listenReopens; i++ {
			if !t.listenOnce(ctx) || sleepCtx(ctx, listenPause) != nil {
				return
			}
		}
	}()
}

// listenOnce reads one standalone stream to its end; false when the server
// does not offer one (or the transport closed), so it is not asked again.
func (t *httpTransport) listenOnce(ctx context.Context) bool {
	resp, err := t.do(ctx, http.MethodGet, nil)
	if err != nil {
		return ctx.Err() == nil
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		return false
	}
	sr := newSSEReader(resp.Body, t.limit.get())
	for {
		data, err := sr.next()
		if err != nil {
			// Over the limit: the stream is dropped, not the connection;
			// the calls' own streams are unaffected.
			return ctx.Err() == nil
		}
		if !t.deliver(ctx, inMsg{data: data}) {
			return false
		}
	}
}
