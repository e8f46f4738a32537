package mcpclient

import (
	"sync"
	"testing"
	"time"
)

// Close lets calls in flight finish, up to the exit grace; with none in
// flight it does not wait at all. Here the grace is an hour: a Close that
// waited for it (waitIdle taking "no call pending" for "some pending")
// fails the test at its own bound instead of holding the suite.
func TestCloseOfAnIdleClientDoesNotWaitForTheGrace(t *testing.T) {
	t.Parallel()
	var held sync.WaitGroup
	c, _, err := connectInMemory(t, "idle", ServerConfig{}, Options{timings: timings{exit: time.Hour}},
		holdServer(make(chan string), make(chan struct{}), &held))
	if err != nil {
		t.Fatal(err)
	}
	closeWithin(t, c) // its exit grace is an hour
	held.Wait()
}

// closeWithin closes c and fails the test if Close has not returned within
// 10 s: a reader that never sees its transport close (conn.go:95:10, the
// read error taken for a message) keeps Close waiting for it for ever,
// and a bare Close would hold the whole suite until its timeout.
func closeWithin(t *testing.T, c *Client) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close has not returned after 10 s")
	}
}
