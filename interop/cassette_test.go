package interop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/cassette"
	"github.com/odek-run/odek/internal/mcpclient"
)

// TestCassetteReplaysFilesystemServer records a session with the reference
// filesystem server (npm) and replays it with the server's command gone:
// discovery and the call give the same answers, and a changed argument
// departs naming the field.
func TestCassetteReplaysFilesystemServer(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 30*time.Second)
	cas := filepath.Join(t.TempDir(), "cas")
	rec, err := cassette.Create(cas, cassette.RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tap := func(server string) (mcpclient.WireTap, error) { return rec.MCPTap(server) }
	cfg := mcpclient.ServerConfig{Command: requirePeer(t, peerFilesystem)}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Args = []string{dir}
	path := filepath.Join(dir, "note.txt")
	if err := os.WriteFile(path, []byte("recorded words\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := jsonArgs(t, map[string]any{"path": path})
	live := connect(ctx, t, "fs", cfg, mcpclient.Options{Tap: tap})
	liveTools := discover(ctx, t, live)
	liveOut := call(ctx, t, live, "fs", "read_text_file", args)
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	// The server and the file are gone; the cassette answers.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	replay := func(t *testing.T) (*cassette.Player, *mcpclient.Client) {
		play, err := cassette.Open(cas, cassette.PlayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		peer := func(server string) (mcpclient.Peer, error) { return play.MCPPeer(server) }
		cfg.Command = "/nonexistent/server-filesystem"
		c := connect(ctx, t, "fs", cfg, mcpclient.Options{Replay: peer})
		if got := discover(ctx, t, c); len(got) != len(liveTools) {
			t.Fatalf("replayed discovery: %d tools, recorded %d", len(got), len(liveTools))
		}
		return play, c
	}
	_, replayed := replay(t)
	if got := call(ctx, t, replayed, "fs", "read_text_file", args); got != liveOut || !strings.Contains(got, "recorded words") {
		t.Fatalf("replayed call = %q, recorded %q", got, liveOut)
	}
	play, changed := replay(t)
	_, err = changed.CallTool(ctx, "read_text_file", jsonArgs(t, map[string]any{"path": path + ".other"}))
	if err == nil || play.Err() == nil || !strings.Contains(play.Err().Error(), "mcp-fs message") || !strings.Contains(play.Err().Error(), "params.arguments.path") {
		t.Fatalf("changed argument: call err %v, departure %v", err, play.Err())
	}
}
