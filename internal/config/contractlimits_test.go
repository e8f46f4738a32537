package config

import (
	"testing"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
)

// TestExtensionLimitValues pins the MCP server limits this package's
// mcp_servers entries get by default to the literal values of EXTENSIONS.md,
// "Server configuration": timeout_seconds 30 (hard cap 3600),
// max_response_bytes 10485760 (absolute ceiling 64 MiB), max_result_chars
// 200000 (hard cap 1000000). The mcpclient tests compare with the
// constants themselves, so a changed constant would pass them.
func TestExtensionLimitValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"timeout_seconds default", int64(mcpclient.DefaultTimeout / time.Second), 30},
		{"timeout_seconds hard cap", mcpclient.MaxTimeoutSeconds, 3600},
		{"max_response_bytes default", mcpclient.DefaultMaxResponseBytes, 10485760},
		{"max_response_bytes ceiling", mcpclient.MaxResponseBytesCeiling, 64 * 1024 * 1024},
		{"max_result_chars default", mcpclient.DefaultMaxResultChars, 200000},
		{"max_result_chars hard cap", mcpclient.MaxResultCharsCap, 1000000},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, EXTENSIONS.md says %d", c.name, c.got, c.want)
		}
	}
	if mcpclient.DefaultTimeout%time.Second != 0 {
		t.Errorf("DefaultTimeout = %v, not whole seconds", mcpclient.DefaultTimeout)
	}
}
