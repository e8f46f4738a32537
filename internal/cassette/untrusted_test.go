package cassette

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }

// A transport error is text like any other: it may carry a secret (a proxy
// URL's password, a key in a query string), so it is redacted before it is
// written.
func TestTransportErrorIsRedacted(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	rec, err := Create(dir, RecordOptions{Redact: mask})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: rec.LLMTransport(failingTransport{errors.New("proxyconnect: sekrit-value refused")})}
	if _, err := c.Post("http://x.invalid", "application/json", strings.NewReader(`{"a":1}`)); err == nil {
		t.Fatal("the failing transport succeeded")
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "llm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sekrit-value") || !strings.Contains(string(b), `"error":"proxyconnect: [REDACTED] refused"`) {
		t.Fatalf("llm.jsonl: %s", b)
	}
}

// A cassette may come from a cloned repository: a symlink in it can point
// at any file of the machine, a pipe or a device can block the reader or
// feed it without end. Only regular files are read.
func TestOpenRefusesFilesThatAreNotRegular(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "outside")
	recordLLM(t, outside, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }, `{"a":1}`)
	cases := map[string]func(dir string) error{
		"cassette.json symlink": func(dir string) error {
			return os.Symlink(filepath.Join(outside, MetaFile), filepath.Join(dir, MetaFile))
		},
		"llm.jsonl symlink": func(dir string) error {
			return os.Symlink(filepath.Join(outside, "llm.jsonl"), filepath.Join(dir, "llm.jsonl"))
		},
		"llm.jsonl pipe": func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "llm.jsonl"), 0o600) },
		"tool pipe":      func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "tool-shell.jsonl"), 0o600) },
		"mcp directory":  func(dir string) error { return os.Mkdir(filepath.Join(dir, "mcp-wc.jsonl"), 0o700) },
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "cas")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(name, MetaFile) {
				copyFile(t, filepath.Join(outside, MetaFile), filepath.Join(dir, MetaFile))
			}
			if err := plant(dir); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- openAllStreams(dir) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Fatalf("err = %v, want a refusal", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the reader blocked")
			}
		})
	}
}

// openAllStreams opens dir and asks for its llm, shell and wc streams.
func openAllStreams(dir string) error {
	p, err := Open(dir, PlayOptions{})
	if err != nil {
		return err
	}
	if _, err := p.LLMTransport(); err != nil {
		return err
	}
	if _, err := p.toolStream("shell"); err != nil {
		return err
	}
	if _, err := p.MCPPeer("wc"); err != nil && !strings.Contains(err.Error(), "no recording") {
		return err
	}
	return nil
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The streams a run never opened count at its end too: a shell call it
// never made, a sub-agent it never started. A sub-agent's own streams
// are its own Finish's (it opens the cassette under its prefix).
func TestFinishReportsStreamsNeverOpened(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	recordLLM(t, dir, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }, `{"a":1}`)
	rec, err := Attach(dir, "sub-0123456789ab-1", RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = rec.RecordTool("shell", json.RawMessage(`{"command":"true"}`), "", nil)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	writeLines(t, filepath.Join(dir, "tool-shell.jsonl"), `{"seq":1,"tool":"shell","args":{"command":"ls"}}`)
	writeLines(t, filepath.Join(dir, "llm-sub-0123456789ab-1.jsonl"), `{"seq":1,"request":{},"response":{"status":200,"body":{}}}`)
	writeLines(t, filepath.Join(dir, "llm-sub-0123456789ab-1.sub-ba9876543210-1.jsonl"), `{"seq":1,"request":{},"response":{"status":200,"body":{}}}`)

	play := func(prefix string, children ...string) error {
		p, err := Open(dir, PlayOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := p.LLMTransport()
		if err != nil {
			t.Fatal(err)
		}
		if prefix == "" {
			if _, err := (&http.Client{Transport: rt}).Post("http://x.invalid", "", strings.NewReader(`{"a":1}`)); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range children {
			p.ChildStarted(c)
		}
		return p.Finish()
	}
	err = play("")
	for _, want := range []string{"tool-shell: 1 of 1 calls", "llm-sub-0123456789ab-1: 1 of 1 requests (its sub-agent was never started)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("top Finish = %v, want %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "ba9876543210") {
		t.Errorf("top Finish reports a grandchild's stream: %v", err)
	}
	// The sub-agent's run: its own shell call and its child count.
	err = play("sub-0123456789ab-1", "sub-0123456789ab-1.sub-ba9876543210-1")
	if err == nil || !strings.Contains(err.Error(), "tool-sub-0123456789ab-1.shell: 1 of 1 calls") || strings.Contains(err.Error(), "never started") {
		t.Errorf("child Finish = %v", err)
	}
	if err := play("sub-0123456789ab-1.sub-ba9876543210-1"); err == nil || !strings.Contains(err.Error(), "llm-sub-0123456789ab-1.sub-ba9876543210-1: 1 of 1 requests") {
		t.Errorf("grandchild Finish = %v", err)
	}
}

func writeLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Every server name the config accepts (1-64 of [A-Za-z0-9_-]) records and
// replays, a leading "_" or "-" included: the stream file is mcp-<name>.
// A name that could leave the cassette's directory is refused.
func TestServerNames(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	rec, err := Create(dir, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"_files", "-x", "a-b_c"} {
		tap, err := rec.MCPTap(name)
		if err != nil {
			t.Fatalf("MCPTap(%q): %v", name, err)
		}
		tap.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := Open(dir, PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.MCPPeer("_files"); err != nil {
		t.Fatalf("MCPPeer: %v", err)
	}
	for _, bad := range []string{"", "../x", "a/b", "a.b", "..", strings.Repeat("n", 65)} {
		if _, err := rec.MCPTap(bad); err == nil {
			t.Errorf("MCPTap(%q) accepted", bad)
		}
		if _, err := p.MCPPeer(bad); err == nil {
			t.Errorf("MCPPeer(%q) accepted", bad)
		}
	}
}

// A tool stream the reader refuses stops the run there, naming the file
// and line: served to the model as the call's error, it only showed up
// later, cut short inside a departure of the next LLM request.
func TestUnreadableToolStreamDeparts(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	if _, err := Create(dir, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	writeLines(t, filepath.Join(dir, "tool-shell.jsonl"), `{"seq":1,"tool":"shell","args":{}}`, `{bad`)
	departed := 0
	p, err := Open(dir, PlayOptions{OnDepart: func(error) { departed++ }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.PlayTool("shell", json.RawMessage(`{}`))
	var d *DepartureError
	if !errors.Is(err, ErrToolDeparted) || !errors.As(p.Err(), &d) || departed != 1 {
		t.Fatalf("PlayTool = %v; Err = %v; departed %d", err, p.Err(), departed)
	}
	if want := "replay: tool-shell call 1 departs from the cassette: cassette tool-shell.jsonl line 2: invalid character"; !strings.HasPrefix(d.Error(), want) {
		t.Fatalf("departure %q, want it to start %q", d.Error(), want)
	}
}

// cassette.json names the three roots a recording has, no others: each
// root is replaced in every string compared, so a hand-made header with a
// million of them would stall the replay.
func TestReadMetaRefusesUnknownRoots(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{`{"x":"/a"}`, `{"workdir":"/w","home":"/h","odek_home":"/o","tmp":"/t"}`} {
		if _, err := ReadMeta([]byte(`{"format":"odek.cassette/v1","roots":` + bad + `}`)); err == nil || !strings.Contains(err.Error(), "want workdir, odek_home or home") {
			t.Errorf("roots %s: err = %v", bad, err)
		}
	}
	if _, err := ReadMeta([]byte(`{"format":"odek.cassette/v1","roots":{"workdir":"/w","home":"/h","odek_home":"/o"}}`)); err != nil {
		t.Errorf("the three roots: %v", err)
	}
}

// A text that happens to hold the recording's root (a route "/app/login"
// in a file, recorded in a container whose workdir was /app) is the same
// text on both sides: each side masks both sides' roots, so it is not a
// departure. Paths under each side's own root still compare equal.
func TestRootsMaskBothSides(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	body := `{"m":"route /rec/login; file /rec/main.go"}`
	recordLLM(t, dir, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }, body)
	p, err := Open(dir, PlayOptions{Roots: map[string]string{"workdir": "/ci/w"}})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := p.LLMTransport()
	if err != nil {
		t.Fatal(err)
	}
	live := `{"m":"route /rec/login; file /ci/w/main.go"}`
	resp, err := (&http.Client{Transport: rt}).Post("http://x.invalid", "", strings.NewReader(live))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("replay: %v %v; departure: %v", resp, err, p.Err())
	}
}
