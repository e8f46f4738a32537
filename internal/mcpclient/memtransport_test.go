package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// The in-memory transport pair, as the go-sdk's in-memory transports: a
// Client and a server in the test's own process, joined by two io.Pipes.
// The client's end frames and bounds messages exactly as a stdio server's
// pipes do (newline-delimited, the Client's read limit); only the process
// is absent, for tests of the protocol where it is not the point.

// memTransport is the Client's end.
type memTransport struct {
	w  *io.PipeWriter // to the server
	r  *io.PipeReader // from the server
	lr *lineReader
}

func (t *memTransport) send(_ context.Context, msg []byte, _ int64) error {
	if _, err := t.w.Write(msg); err != nil {
		return errClosed
	}
	return nil
}

func (t *memTransport) recv() ([]byte, error) { return t.lr.next() }

func (t *memTransport) close(grace) error {
	_ = t.w.Close()
	_ = t.r.Close()
	return nil
}

// memServer is the server's end: whole lines in, whole lines out.
type memServer struct {
	in  *bufio.Reader
	r   *io.PipeReader
	out *io.PipeWriter
}

// Recv returns the next message the Client sent, without its newline;
// io.EOF once the Client closed.
func (s *memServer) Recv() ([]byte, error) {
	line, err := s.in.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

// Send writes one message (a newline is added) to the Client.
func (s *memServer) Send(msg []byte) error {
	_, err := s.out.Write(append(append([]byte(nil), msg...), '\n'))
	return err
}

// Close ends the server's side: the Client reads EOF.
func (s *memServer) Close() {
	_ = s.out.Close()
	_ = s.r.Close()
}

// newMemPair joins a Client's end, read within limit, to a server's end.
func newMemPair(limit *readLimit) (*memTransport, *memServer) {
	srvR, cliW := io.Pipe() // the Client writes, the server reads
	cliR, srvW := io.Pipe() // the server writes, the Client reads
	return &memTransport{w: cliW, r: cliR, lr: newLimitedLineReader(cliR, limit)},
		&memServer{in: bufio.NewReader(srvR), r: srvR, out: srvW}
}

// connectInMemory is a Client named name joined in memory to a server
// that serve runs until its end closes, discovered (connectDiscovered).
func connectInMemory(t *testing.T, name string, cfg ServerConfig, o Options, serve func(*memServer)) (*Client, []ToolDef, error) {
	t.Helper()
	o.dial = func(c *Client) (transport, error) { // again on each restart
		ct, s := newMemPair(c.read)
		done := make(chan struct{})
		go func() { defer close(done); serve(s); s.Close() }()
		t.Cleanup(func() { s.Close(); <-done })
		return ct, nil
	}
	if cfg.Command == "" && cfg.URL == "" {
		cfg.Command = name // names the stand-in; nothing runs it
	}
	return connectDiscovered(t, name, cfg, o)
}

// The pair carries whole lines both ways, bounds what the Client reads as
// a stdio pipe does, and ends the server's reading when the Client closes.
func TestMemPair(t *testing.T) {
	ct, s := newMemPair(newReadLimit(16))
	go func() { _ = ct.send(context.Background(), []byte("{\"a\":1}\n"), 1) }()
	if got, err := s.Recv(); err != nil || string(got) != `{"a":1}` {
		t.Fatalf("server got %q, %v", got, err)
	}
	go func() { _ = s.Send([]byte(`{"b":2}`)) }()
	if got, err := ct.recv(); err != nil || string(got) != `{"b":2}` {
		t.Fatalf("client got %q, %v", got, err)
	}
	go func() { _ = s.Send([]byte(`{"far":"more than sixteen bytes"}`)) }()
	var tooLarge *ResponseTooLargeError
	if _, err := ct.recv(); !errors.As(err, &tooLarge) {
		t.Fatalf("an oversized line: %v, want a ResponseTooLargeError", err)
	}
	_ = ct.close(grace{})
	if _, err := s.Recv(); err != io.EOF {
		t.Fatalf("server after the Client closed: %v", err)
	}
}
