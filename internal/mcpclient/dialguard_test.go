package mcpclient

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRefuseUnsafeAddr(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"127.0.0.1:80", ""},
		{"[::1]:80", ""},
		{"10.1.2.3:443", ""},
		{"169.254.169.254:80", "link-local"},
		{"[fe80::1]:80", "link-local"},
		{"[::ffff:169.254.169.254]:80", "link-local"},
		{"0.0.0.0:80", "unspecified"},
		{"[::]:80", "unspecified"},
		{"239.1.2.3:80", "multicast"},
	}
	for _, tt := range tests {
		err := refuseUnsafeAddr("tcp", tt.addr, nil)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("refuseUnsafeAddr(%s) = %v, want %q", tt.addr, err, tt.want)
		}
	}
}

// A server URL pointing at the cloud metadata address never gets a request.
func TestHTTPServerOnMetadataAddressRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Connect(ctx, "meta", ServerConfig{URL: "http://169.254.169.254/mcp", TimeoutSeconds: 5}, Options{Stderr: io.Discard})
	if err == nil {
		defer c.Close()
		_, err = c.Discover(ctx)
	}
	if err == nil || !strings.Contains(err.Error(), "refusing to connect to 169.254.169.254: link-local address") {
		t.Fatalf("err = %v", err)
	}
}

// The dialer of url servers bounds a connection attempt to 30 s (a
// blackholed host must not hold a run for the OS's minutes), probes idle
// connections every 30 s, and runs the address guard on every dial.
func TestGuardedDialerSettings(t *testing.T) {
	d := guardedDialer()
	if d.Timeout != 30*time.Second || d.KeepAlive != 30*time.Second {
		t.Errorf("dialer timeout %v keep-alive %v, want 30s and 30s", d.Timeout, d.KeepAlive)
	}
	if d.Control == nil || d.Control("tcp", "169.254.169.254:80", nil) == nil {
		t.Error("dialer does not refuse the metadata address")
	}
}
