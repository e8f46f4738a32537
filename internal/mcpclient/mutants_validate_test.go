package mcpclient

import (
	"context"
	"strings"
	"testing"
)

// A server's sandbox is one of workspace-write, read-only and off (or
// unset); any other value, and a server given both a url and a command,
// is refused by Connect as a setup error before anything runs. The three
// values start the (real) server.
func TestConfigSandboxValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sandbox, url string
		want         string // "" = the server starts
	}{
		{"", "", ""},
		{"workspace-write", "", ""},
		{"read-only", "", ""},
		{"off", "", ""},
		{"strict", "", `mcp server "s": sandbox "strict" is not one of workspace-write, read-only, off`},
		{"Off", "", `mcp server "s": sandbox "Off" is not one of workspace-write, read-only, off`},
		{"", "http://127.0.0.1:1/mcp", `mcpclient s: server config must set either url or command, not both`},
	}
	for _, tt := range tests {
		t.Run(tt.sandbox+tt.url, func(t *testing.T) {
			t.Parallel()
			cfg := ServerConfig{Command: fixtureBin, Args: []string{"-root", t.TempDir()}, Sandbox: tt.sandbox, URL: tt.url}
			c, err := Connect(context.Background(), "s", cfg, Options{Environ: testEnviron})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("sandbox %q: %v", tt.sandbox, err)
				}
				if err := c.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
				return
			}
			if err == nil {
				_ = c.Close()
			}
			if err == nil || err.Error() != tt.want || classOf(err) != classSetup {
				t.Fatalf("err = %v, want the setup error %q", err, tt.want)
			}
		})
	}
}

// restart_limit at its cap of 10 is taken as it is, without the warning a
// value over the cap gets.
func TestRestartLimitAtTheCap(t *testing.T) {
	t.Parallel()
	cfg := ServerConfig{URL: "http://127.0.0.1:1/mcp", RestartLimit: ptr(maxRestartLimit)} // never dialled
	c, err := Connect(context.Background(), "s", cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("restart_limit %d warns: %s", maxRestartLimit, strings.Join(w, "; "))
	}
	if c.lim.restarts != maxRestartLimit {
		t.Errorf("restart_limit in force %d, want %d", c.lim.restarts, maxRestartLimit)
	}
}

// idle_timeout_seconds at the hard cap (3600) is not clamped: the only
// warning is that it is not below timeout_seconds, which it never can be.
func TestIdleTimeoutAtTheCap(t *testing.T) {
	t.Parallel()
	cfg := ServerConfig{URL: "http://127.0.0.1:1/mcp", TimeoutSeconds: MaxTimeoutSeconds, IdleTimeoutSeconds: MaxTimeoutSeconds} // never dialled
	c, err := Connect(context.Background(), "s", cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := `mcp server "s": idle_timeout_seconds 3600 is not below timeout_seconds 3600, the deadline of the whole call; it has no effect`
	if got := strings.Join(c.Warnings(), "\n"); got != want {
		t.Errorf("warnings %q, want %q", got, want)
	}
	if c.lim.idle != 0 {
		t.Errorf("idle deadline %v, want none", c.lim.idle)
	}
}
