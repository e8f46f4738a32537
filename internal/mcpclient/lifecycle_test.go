package mcpclient

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// Close waits for every call in flight, not only the first to finish: a
// shorter call ending must not let the shutdown cut the longer one off. And
// it waits for the calls, not out its exit grace: it returns once the last
// one is answered.
func TestCloseWaitsForEveryInflightCall(t *testing.T) {
	t.Parallel()
	const grace = 20 * time.Second
	f, err := connectFixtureTimed(t, ServerConfig{}, timings{exit: grace})
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	errs := make(chan error, 2)
	for _, ms := range []string{"50", "600"} {
		go func() { _, err := f.call(t, "slow", `{"ms":`+ms+`}`); errs <- err }()
	}
	waitPending(t, f.c, 2)
	start := time.Now()
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= grace/2 {
		t.Errorf("Close took %v: it waited out the exit grace, not the calls", d)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("in-flight call failed on Close: %v", err)
		}
	}
}

// CloseNow's first step is closing stdin: a server that needs a moment to
// exit after EOF gets the interrupt grace (Options.InterruptGrace unset: the
// default) to do so and is never signalled.
func TestCloseNowLetsServerExitOnEOF(t *testing.T) {
	t.Parallel()
	c, err := Connect(context.Background(), "eof", ServerConfig{Command: "/bin/sh",
		Args: []string{"-c", "cat >/dev/null; sleep 0.3; exit 0"}},
		Options{Environ: testEnviron, timings: timings{interrupt: 3 * time.Second}}) // far more than the server's 300 ms
	if err != nil {
		t.Fatal(err)
	}
	st := c.conn.t.(*stdioTransport)
	if err := c.CloseNow(); err != nil {
		t.Fatal(err)
	}
	<-st.exited
	if st.waitErr != nil {
		t.Errorf("server ended with %v, want exit status 0 on its own", st.waitErr)
	}
}

// Set.CloseNow is the interrupted run's shutdown: it does not give a server
// that ignores stdin closing and SIGTERM Close's exit grace.
func TestSetCloseNowStubbornServer(t *testing.T) {
	t.Parallel()
	set, _, err := startSet(t, StartOptions{Servers: []ServerSpec{fixtureSpec(t, "s", "-stubborn")}})
	if err != nil {
		t.Fatal(err)
	}
	pid := set.Clients()[0].conn.t.(*stdioTransport).proc.Pid()
	done := make(chan error, 1)
	go func() { done <- set.CloseNow() }()
	select {
	case <-done:
	case <-time.After(exitGrace): // Close alone would still be waiting here
		t.Fatal("Set.CloseNow waited like Close")
	}
	if !groupGone(pid) {
		t.Fatalf("process group %d alive after Set.CloseNow", pid)
	}
}

// failSend is a transport whose every request fails to send; it answers
// nothing and ends only when closed.
type failSend struct {
	closed chan struct{}
	once   sync.Once
}

var errSendFailed = errors.New("write to server: broken pipe")

func (f *failSend) send(_ context.Context, _ []byte, id int64) error {
	if id > 0 {
		return errSendFailed
	}
	return nil
}

func (f *failSend) recv() ([]byte, error) {
	<-f.closed
	return nil, errClosed
}

func (f *failSend) close(grace) error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

// A request whose send fails gets that error at once, not its deadline, and
// leaves nothing pending.
func TestSendFailureFailsTheRequest(t *testing.T) {
	c := newConn(&failSend{closed: make(chan struct{})}, nil)
	defer c.stop(grace{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.roundTrip(ctx, "tools/call", nil); !errors.Is(err, errSendFailed) {
		t.Fatalf("roundTrip = %v, want the send error", err)
	}
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	if n != 0 {
		t.Errorf("%d requests left pending", n)
	}
}

// After stdin, SIGTERM: a server that ignores EOF but exits on SIGTERM gets
// the term grace (Close: 500 ms; CloseNow: its second 250 ms step) to exit
// on its own before the group is killed.
func TestShutdownLetsServerExitOnSIGTERM(t *testing.T) {
	t.Parallel()
	short := timings{exit: 100 * time.Millisecond} // Close's first step; not what is tested
	for name, closeFn := range map[string]func(*Client) error{"Close": (*Client).Close, "CloseNow": (*Client).CloseNow} {
		c, err := Connect(context.Background(), "term", ServerConfig{Command: "/bin/sh",
			Args: []string{"-c", "trap 'exit 0' TERM; while :; do sleep 5 & wait $!; done"}}, Options{Environ: testEnviron, timings: short})
		if err != nil {
			t.Fatal(err)
		}
		st := c.conn.t.(*stdioTransport)
		if err := closeFn(c); err != nil {
			t.Fatal(err)
		}
		<-st.exited
		if st.waitErr != nil {
			t.Errorf("%s: server ended with %v, want exit status 0 from its TERM trap", name, st.waitErr)
		}
	}
}
