package cassette

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The line cap is exact: a body of MaxLineBytes is whole, one byte more is
// refused, never cut short.
func TestRequestBodyAtTheCap(t *testing.T) {
	t.Parallel()
	at := bytes.Repeat([]byte("a"), MaxLineBytes)
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/v1/chat/completions", bytes.NewReader(at))
	b, err := requestBody(req)
	if err != nil || len(b) != MaxLineBytes {
		t.Fatalf("a body of exactly the cap: %d bytes, %v", len(b), err)
	}
	again, _ := io.ReadAll(req.Body)
	if len(again) != MaxLineBytes {
		t.Fatalf("the body put back holds %d bytes, want %d", len(again), MaxLineBytes)
	}
	over := append(at, 'b')
	req, _ = http.NewRequest(http.MethodPost, "http://127.0.0.1/v1/chat/completions", bytes.NewReader(over))
	if _, err := requestBody(req); err == nil || !strings.Contains(err.Error(), "over the 32 MiB line cap") {
		t.Fatalf("a body one byte over the cap: %v", err)
	}
}

// cassette.json is read whole up to the cap and refused, saying so, one
// byte over it.
func TestMetaFileAtTheCap(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	if _, err := Create(dir, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, MetaFile)
	meta, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Leading blanks: a meta file cut at its end is no JSON, so a short read
	// cannot pass for a whole one.
	pad := func(n int) []byte { return append(bytes.Repeat([]byte(" "), n-len(meta)), meta...) }
	if err := os.WriteFile(path, pad(MaxLineBytes), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, PlayOptions{}); err != nil {
		t.Fatalf("a meta file of exactly the cap: %v", err)
	}
	if err := os.WriteFile(path, pad(MaxLineBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, PlayOptions{}); err == nil || err.Error() != "cassette cassette.json: over the 32 MiB cap" {
		t.Fatalf("a meta file one byte over the cap: %v", err)
	}
}

// The error for an over-long exchange names the cap in MiB.
func TestRecordLineCapMessage(t *testing.T) {
	t.Parallel()
	rec, err := Create(filepath.Join(t.TempDir(), "c"), RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = rec.RecordTool("shell", []byte(`{}`), strings.Repeat("x", MaxLineBytes+(1<<20)), nil)
	if err := rec.Err(); err == nil || !strings.HasSuffix(err.Error(), ": exchange 1 is 33 MiB, over the 32 MiB line cap") {
		t.Fatalf("Err = %v", err)
	}
}

// A departure names the message by its place among this run's sends and by
// its method, or says it was odek's answer to the server; it is compared
// with the first send the cassette still holds.
func TestPeerDepartureNamesMessage(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	writeMCP(t, dir, "s",
		`send {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`,
		`recv {"jsonrpc":"2.0","id":1,"result":{}}`,
		`send {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}`,
		`send {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"c"}}`,
	)
	depart := func(msgs ...string) *DepartureError {
		t.Helper()
		peer := openPeer(t, dir, "s")
		var err error
		for i, m := range msgs {
			err = peer.Send(context.Background(), []byte(m))
			if i < len(msgs)-1 && err != nil {
				t.Fatalf("send %d: %v", i+1, err)
			}
		}
		var d *DepartureError
		if !errors.As(err, &d) {
			t.Fatalf("last send = %v, want a departure", err)
		}
		return d
	}
	d := depart(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x"}}`)
	if d.What != "message 2 (tools/call)" || d.Path != "params.name" || !strings.HasPrefix(d.Want, `"b" `) || !strings.HasPrefix(d.Got, `"x" `) {
		t.Fatalf("departure = %q %q %q %q, want message 2 compared with the recorded send of b", d.What, d.Path, d.Want, d.Got)
	}
	// With no send played yet, the first send of the cassette is the one
	// compared, not a later one.
	d = depart(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`)
	if d.What != "message 1 (tools/call)" || !strings.HasPrefix(d.Want, `"a" `) {
		t.Fatalf("departure = %q %q, want message 1 compared with the recorded send of a", d.What, d.Want)
	}
	d = depart(`{"jsonrpc":"2.0","id":9,"result":{}}`)
	if d.What != "message 1 (an answer to the server)" {
		t.Fatalf("departure = %+v, want message 1 named as an answer", d)
	}
}

// A server's own request keeps the server's id, and odek's answer to it
// does not remap odek's request of the same number.
func TestPeerServerRequestKeepsItsID(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	writeMCP(t, dir, "s",
		`send {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`,
		`recv {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`,
		`send {"jsonrpc":"2.0","id":1,"result":{"ok":true}}`,
		`recv {"jsonrpc":"2.0","id":1,"result":{"r":"a"}}`,
	)
	peer := openPeer(t, dir, "s")
	ctx := context.Background()
	if err := peer.Send(ctx, []byte(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"a"}}`)); err != nil {
		t.Fatal(err)
	}
	if got, want := recvWithin(t, peer), `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`; got != want {
		t.Fatalf("server request = %s, want %s", got, want)
	}
	if err := peer.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`)); err != nil {
		t.Fatal(err)
	}
	if got, want := recvWithin(t, peer), `{"id":10,"jsonrpc":"2.0","result":{"r":"a"}}`; got != want {
		t.Fatalf("result = %s, want %s", got, want)
	}
}

// A notification that matches a recorded request (ids are not compared)
// has no answer coming: the recorded answer is never delivered.
func TestPeerNotificationGetsNoAnswer(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	writeMCP(t, dir, "s",
		`send {"jsonrpc":"2.0","id":5,"method":"ping"}`,
		`recv {"jsonrpc":"2.0","id":5,"result":{}}`,
	)
	peer := openPeer(t, dir, "s")
	if err := peer.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	_ = peer.Close()
	if got := recvWithin(t, peer); got != "error: "+io.EOF.Error() {
		t.Fatalf("Recv after a notification = %s, want EOF", got)
	}
}

// Close reports a stream that failed to close when nothing failed before.
func TestCloseReportsACloseError(t *testing.T) {
	t.Parallel()
	rec, err := Create(filepath.Join(t.TempDir(), "c"), RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.RecordTool("shell", []byte(`{}`), "out", nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range rec.streams {
		_ = s.f.Close() // the stream's own Close now fails
	}
	if err := rec.Close(); err == nil || !strings.Contains(err.Error(), "already closed") {
		t.Fatalf("Close = %v, want the stream's close error", err)
	}
}

// A racing process swaps the stream file for a symlink between the check
// and the open: the reader refuses what it opened instead of reading the
// link's target.
func TestOpenRegularRefusesASwap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	regular, secret, path := filepath.Join(dir, "regular"), filepath.Join(dir, "secret"), filepath.Join(dir, "stream.jsonl")
	if err := os.WriteFile(regular, []byte("regular"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() { // the racer
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			tmp := filepath.Join(dir, "tmp")
			if i%2 == 0 {
				_ = os.Link(regular, tmp)
			} else {
				_ = os.Symlink(secret, tmp)
			}
			_ = os.Rename(tmp, path)
		}
	}()
	defer func() { stop.Store(true); <-done }()
	refused := 0
	for deadline := time.Now().Add(10 * time.Second); refused < 3 && time.Now().Before(deadline); {
		f, err := openRegular(path)
		if err != nil {
			if strings.Contains(err.Error(), "changed while it was opened") {
				refused++
			}
			continue
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "regular" {
			t.Fatalf("read %q through a swapped-in symlink", b)
		}
	}
	if refused == 0 {
		t.Log("the racer never hit the window between the check and the open")
	}
}

// openPeer opens dir's cassette and the replay peer of server.
func openPeer(t *testing.T, dir, server string) *Peer {
	t.Helper()
	p, err := Open(dir, PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	peer, err := p.MCPPeer(server)
	if err != nil {
		t.Fatal(err)
	}
	return peer
}
