package mcpclient

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// renewServer is a sessionful 2025 server that can forget its session, as
// one that restarted would: a POST with any other session than the one it
// gave last is answered 404. Its standalone GET stream stays open until
// the client goes; opened receives each GET's session as it arrives.
type renewServer struct {
	opened chan string

	mu      sync.Mutex
	n       int    // sessions given
	current string // the session it knows; "" after forget
	gets    []string
}

func (s *renewServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Method == http.MethodGet {
		s.mu.Lock()
		s.gets = append(s.gets, sid)
		s.mu.Unlock()
		s.opened <- sid
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	var m eraMsg
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	s.mu.Lock()
	known := s.current
	s.mu.Unlock()
	if sid != "" && sid != known {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch m.Method {
	case "server/discover":
		w.WriteHeader(http.StatusBadRequest)
	case "initialize":
		s.mu.Lock()
		s.n++
		s.current = fmt.Sprintf("sess-%d", s.n)
		w.Header().Set("Mcp-Session-Id", s.current)
		s.mu.Unlock()
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}}}}`, m.ID)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`, m.ID)
	case "tools/call":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"echoed"}]}}`, m.ID)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// forget drops the session, as a restarted server would.
func (s *renewServer) forget() {
	s.mu.Lock()
	s.current = ""
	s.mu.Unlock()
}

func (s *renewServer) getSessions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.gets...)
}

// inFlight counts what c's HTTP transport has registered and not yet
// ended: its POSTs in flight and its standalone stream's loop.
func inFlight(c *Client) int {
	c.http.mu.Lock()
	defer c.http.mu.Unlock()
	return len(c.http.cancels)
}

// A session renewed after the server forgot it (restart_limit's restart of
// an HTTP server) opens no second standalone stream while the first still
// runs: listen is called again by the new initialize, and does nothing.
// Two streams would deliver every server request twice.
func TestRenewedSessionKeepsOneStandaloneStream(t *testing.T) {
	t.Parallel()
	srv := &renewServer{opened: make(chan string, 16)}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close) // after the client's Close, which ends the held GET
	c, _, err := connectDiscovered(t, "rn", ServerConfig{URL: ts.URL}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case sid := <-srv.opened:
		if sid != "sess-1" {
			t.Fatalf("the standalone stream carried session %q, want sess-1", sid)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no standalone stream within 10 s")
	}
	srv.forget()
	if r, err := eraCall(t, c, "echo"); err != nil || !strings.Contains(r.Text, "echoed") {
		t.Fatalf("call after the session was forgotten: %v", err)
	}
	// The renewal ran before the call was sent again, and a second
	// stream's loop is registered before listen returns: once the call's
	// own POSTs are done, one registration is left. They end with no
	// event to wait on, so the count is polled (bounded).
	for deadline := time.Now().Add(10 * time.Second); inFlight(c) != 1; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d POSTs or streams still registered after 10 s, want the one standalone stream (GETs %v)",
				inFlight(c), srv.getSessions())
		}
	}
	if got := srv.getSessions(); len(got) != 1 {
		t.Errorf("GETs with sessions %v, want the first one only", got)
	}
}

// dropServer is standaloneServer whose GET fails on the wire: the
// connection is closed before any answer. Its POSTs' connections close
// after the answer, so no GET goes out on a reused connection: Go's
// transport sends a GET again by itself when a reused connection fails,
// once for every idle connection it may try, and the count would not be
// the client's tries.
type dropServer struct {
	standaloneServer
	mu   sync.Mutex
	gets int
}

func (s *dropServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Connection", "close")
		s.standaloneServer.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	s.gets++
	s.mu.Unlock()
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	_ = conn.Close()
}

func (s *dropServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// A standalone stream whose GET fails on the wire (no answer at all: a
// proxy or a server restarting) is tried again after the pause, like one
// that ends, up to listenReopens times; only a server that answers that it
// offers none is not asked again: listenReopens+1 tries, one GET each on a
// new connection. Not parallel: it shortens the package's pause and reopen
// count.
func TestStandaloneStreamRetriedAfterWireFailure(t *testing.T) {
	pause, reopens := listenPause, listenReopens
	listenPause, listenReopens = time.Millisecond, 3
	defer func() { listenPause, listenReopens = pause, reopens }()
	srv := &dropServer{}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close) // after the client's Close, which ends the held GET
	c, _, err := connectDiscovered(t, "dr", ServerConfig{URL: ts.URL}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitStreamEnded(t, c, func() string { return fmt.Sprintf("%d GETs", srv.count()) })
	_ = c.Close()
	if got, tries := srv.count(), listenReopens+1; got != tries {
		t.Errorf("%d GETs, want %d", got, tries)
	}
}
