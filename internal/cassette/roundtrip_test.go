package cassette

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mask(s string) string { return strings.ReplaceAll(s, "sekrit-value", "[REDACTED]") }

func recordLLM(t *testing.T, dir string, h http.HandlerFunc, bodies ...string) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	rec, err := Create(dir, RecordOptions{Meta: Meta{Roots: map[string]string{"workdir": "/rec"}}, Redact: mask})
	if err != nil {
		t.Fatal(err)
	}
	rt := rec.LLMTransport(http.DefaultTransport)
	c := &http.Client{Transport: rt}
	for _, b := range bodies {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(b))
		req.Header.Set("Authorization", "Bearer sk-never-written")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLLMRecordAndReplay(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	n := 0
	recordLLM(t, dir, func(w http.ResponseWriter, r *http.Request) {
		n++
		switch n {
		case 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
			_, _ = io.WriteString(w, `{"error":{"message":"slow down"}}`)
		case 2:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"sekrit-value <b>\"}}]}\n\ndata: [DONE]\n\n")
		}
	}, `{"model":"m","messages":[{"role":"user","content":"in /rec"}]}`, `{"model":"m","messages":[{"role":"user","content":"in /rec again sekrit-value"}]}`)

	raw, err := os.ReadFile(filepath.Join(dir, "llm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, never := range []string{"sekrit-value", "sk-never-written", `\u003c`} {
		if strings.Contains(string(raw), never) {
			t.Errorf("llm.jsonl holds %q:\n%s", never, raw)
		}
	}
	for _, f := range []string{dir, filepath.Join(dir, "llm.jsonl"), filepath.Join(dir, MetaFile)} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", f, fi.Mode().Perm(), want)
		}
	}

	var departed error
	p, err := Open(dir, PlayOptions{Roots: map[string]string{"workdir": "/live"}, Redact: mask, OnDepart: func(err error) { departed = err }})
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := p.LLMTransport()
	c := &http.Client{Transport: rt}
	resp, err := c.Post("http://replay.invalid", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"in /live"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "0" || !strings.Contains(string(body), "slow down") {
		t.Fatalf("replayed 1: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	// The live side is redacted like the recorded one before comparing.
	resp, err = c.Post("http://replay.invalid", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"in /live again sekrit-value"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Type") != "text/event-stream" || string(body) != "data: {\"choices\":[{\"delta\":{\"content\":\"[REDACTED] <b>\"}}]}\n\ndata: [DONE]\n\n" {
		t.Fatalf("replayed 2: %v %q", resp.Header, body)
	}
	if err := p.Finish(); err != nil {
		t.Fatalf("Finish after the whole cassette: %v", err)
	}
	// One more request than recorded departs.
	resp, err = c.Post("http://replay.invalid", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 || departed == nil || !strings.Contains(departed.Error(), "llm request 3 departs from the cassette: the cassette holds 2 requests") {
		t.Fatalf("extra request: %d, departed %v", resp.StatusCode, departed)
	}
	var d *DepartureError
	if !errors.As(p.Err(), &d) || d.Stream != "llm" {
		t.Fatalf("Err = %v", p.Err())
	}
}

func TestFinishReportsUnplayed(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	recordLLM(t, dir, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{}`) }, `{"a":1}`, `{"a":2}`)
	p, err := Open(dir, PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := p.LLMTransport()
	resp, err := (&http.Client{Transport: rt}).Post("http://x.invalid", "", strings.NewReader(`{"a":1}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first: %v %v", resp, err)
	}
	err = p.Finish()
	if err == nil || !strings.Contains(err.Error(), "not replayed: llm: 1 of 2 requests") {
		t.Fatalf("Finish = %v", err)
	}
}

func TestCreateRefusesForeignDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keep := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(dir, RecordOptions{}); err == nil || !strings.Contains(err.Error(), "refusing to record over it") {
		t.Fatalf("Create = %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatal("a refused Create removed a file")
	}
	// Recording over a cassette replaces it.
	cas := filepath.Join(t.TempDir(), "cas")
	recordLLM(t, cas, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{}`) }, `{"a":1}`, `{"a":2}`)
	recordLLM(t, cas, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{}`) }, `{"a":3}`)
	b, _ := os.ReadFile(filepath.Join(cas, "llm.jsonl"))
	if strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), `"a":3`) {
		t.Fatalf("re-recorded stream: %s", b)
	}
}

func TestRecordLineCap(t *testing.T) {
	t.Parallel()
	rec, err := Create(filepath.Join(t.TempDir(), "c"), RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.RecordTool("shell", json.RawMessage(`{}`), strings.Repeat("x", MaxLineBytes), nil); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err == nil || !strings.Contains(err.Error(), "over the 32 MiB line cap") {
		t.Fatalf("Close = %v, want the line cap", err)
	}
}

// writeMCP writes an mcp stream by hand, as a person editing one would.
func writeMCP(t *testing.T, dir, server string, lines ...string) {
	t.Helper()
	if _, err := Create(dir, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, l := range lines {
		dirn, msg, _ := strings.Cut(l, " ")
		e, _ := json.Marshal(MCPEntry{Seq: i + 1, Dir: dirn, Msg: json.RawMessage(msg)})
		b.Write(e)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, mcpFile("", server)), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func recvWithin(t *testing.T, p *Peer) string {
	t.Helper()
	ch := make(chan string, 1)
	go func() {
		b, err := p.Recv()
		if err != nil {
			ch <- "error: " + err.Error()
			return
		}
		ch <- string(b)
	}()
	select {
	case s := <-ch:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("Recv blocked")
		return ""
	}
}

func TestPeerRenumbersAndToleratesReorder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	writeMCP(t, dir, "s",
		`send {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`,
		`send {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}`,
		`recv {"jsonrpc":"2.0","method":"notifications/message","params":{}}`,
		`recv {"jsonrpc":"2.0","id":2,"result":{"r":"b"}}`,
		`recv {"jsonrpc":"2.0","id":1,"result":{"r":"a"}}`,
	)
	p, err := Open(dir, PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	peer, err := p.MCPPeer("s")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// This run sends b first, under other ids.
	if err := peer.Send(ctx, []byte(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"b"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := peer.Send(ctx, []byte(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"a"}}`)); err != nil {
		t.Fatal(err)
	}
	got := []string{recvWithin(t, peer), recvWithin(t, peer), recvWithin(t, peer)}
	want := []string{`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, `{"id":11,"jsonrpc":"2.0","result":{"r":"b"}}`, `{"id":10,"jsonrpc":"2.0","result":{"r":"a"}}`}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("recv %d = %s, want %s", i, got[i], want[i])
		}
	}
	// A request the cassette does not hold departs, naming the field.
	err = peer.Send(ctx, []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"c"}}`))
	var d *DepartureError
	if !errors.As(err, &d) || d.Stream != "mcp-s" || !strings.Contains(d.Reason, "no further message") {
		t.Fatalf("extra send: %v", err)
	}
	_ = peer.Close()
	if _, err := peer.Recv(); err == nil {
		t.Fatal("Recv after a departure and Close returned a message")
	}
}

func TestPeerDepartureNamesField(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	writeMCP(t, dir, "s",
		`send {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"n":1}}}`,
		`recv {"jsonrpc":"2.0","id":1,"result":{}}`,
	)
	p, _ := Open(dir, PlayOptions{})
	peer, err := p.MCPPeer("s")
	if err != nil {
		t.Fatal(err)
	}
	// A notification the cassette lacks is no departure.
	if err := peer.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)); err != nil {
		t.Fatalf("unrecorded notification: %v", err)
	}
	err = peer.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"n":2}}}`))
	var d *DepartureError
	if !errors.As(err, &d) || d.Path != "params.arguments.n" || d.Want != "1" || d.Got != "2" {
		t.Fatalf("departure = %#v", err)
	}
	if _, err := p.MCPPeer("other"); err == nil || !strings.Contains(err.Error(), `no recording of MCP server "other"`) {
		t.Fatalf("unrecorded server: %v", err)
	}
}

func TestPlayTool(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	rec, err := Create(dir, RecordOptions{Redact: mask})
	if err != nil {
		t.Fatal(err)
	}
	_ = rec.RecordTool("shell", json.RawMessage(`{"command":"echo sekrit-value"}`), "sekrit-value\n", nil)
	_ = rec.RecordTool("shell", json.RawMessage(`{"command":"false"}`), "", errors.New("exit status 1"))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	p, _ := Open(dir, PlayOptions{Redact: mask})
	out, err := p.PlayTool("shell", json.RawMessage(`{"command":"echo sekrit-value"}`))
	if err != nil || out != "[REDACTED]\n" {
		t.Fatalf("call 1: %q %v", out, err)
	}
	if _, err := p.PlayTool("shell", json.RawMessage(`{"command":"false"}`)); err == nil || err.Error() != "exit status 1" {
		t.Fatalf("call 2: %v", err)
	}
	_, err = p.PlayTool("shell", json.RawMessage(`{"command":"ls"}`))
	if !errors.Is(err, ErrToolDeparted) || !strings.Contains(err.Error(), "tool-shell call 3") {
		t.Fatalf("call 3: %v", err)
	}
	if _, err := p.PlayTool("../x", nil); err == nil {
		t.Fatal("a stream name with a path was accepted")
	}
}
