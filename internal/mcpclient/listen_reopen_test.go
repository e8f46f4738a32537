package mcpclient

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// reopenServer is standaloneServer whose GET stream answers as get says:
// "end" (a stream that ends at once), "405" or "html" (200, not an event
// stream).
type reopenServer struct {
	standaloneServer
	get     string
	want    int           // GETs after which reached is closed
	reached chan struct{} // closed at the want-th GET
	mu      sync.Mutex
	gets    int
}

func (s *reopenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		s.standaloneServer.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	s.gets++
	if s.gets == s.want {
		close(s.reached)
	}
	s.mu.Unlock()
	switch s.get {
	case "end":
		w.Header().Set("Content-Type", "text/event-stream")
	case "405":
		w.WriteHeader(http.StatusMethodNotAllowed)
	case "html":
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>no</p>"))
	}
}

// listening reports whether c's HTTP transport has its standalone
// stream's loop running.
// waitStreamEnded waits (10 s at most) until c's standalone stream loop
// has ended: only then is a count of its GETs final. state names what the
// test saw, for the failure.
func waitStreamEnded(t *testing.T, c *Client, state func() string) {
	t.Helper()
	c.http.mu.Lock()
	end := c.http.listenEnd
	c.http.mu.Unlock()
	if end == nil {
		return // ended already
	}
	select {
	case <-end:
	case <-time.After(10 * time.Second):
		t.Fatalf("the standalone stream still runs after 10 s (%s)", state())
	}
}

func (s *reopenServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// TestStandaloneStreamReopens: a standalone stream that ends is opened
// again after the pause, exactly
// listenReopens times after the first; a server that does not offer one
// (405, or a 200 that is not an event stream) is asked once. Not run in
// parallel: it shortens the package's pause and reopen count, and puts
// them back once each client is closed (Close waits for the listener).
// The count is read once the transport no longer listens.
func TestStandaloneStreamReopens(t *testing.T) {
	pause, reopens := listenPause, listenReopens
	listenPause, listenReopens = time.Millisecond, 3
	defer func() { listenPause, listenReopens = pause, reopens }()
	for _, tc := range []struct {
		get  string
		want int
	}{{"end", 4}, {"405", 1}, {"html", 1}} {
		srv := &reopenServer{get: tc.get, want: tc.want, reached: make(chan struct{})}
		ts := httptest.NewServer(srv)
		c, _, err := connectDiscovered(t, "bg", ServerConfig{URL: ts.URL}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-srv.reached:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: %d GETs within 10 s, want %d", tc.get, srv.count(), tc.want)
		}
		waitStreamEnded(t, c, func() string { return fmt.Sprintf("%s: %d GETs", tc.get, srv.count()) })
		_ = c.Close()
		if got := srv.count(); got != tc.want {
			t.Errorf("%s: %d GETs, want %d", tc.get, got, tc.want)
		}
		ts.Close()
	}
}
