package config

import (
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
)

// TestExtensionLimitValues pins the MCP server limits this package's
// mcp_servers entries get by default to the literal values of docs/EXTENSIONS.md,
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
			t.Errorf("%s = %d, docs/EXTENSIONS.md says %d", c.name, c.got, c.want)
		}
	}
	if mcpclient.DefaultTimeout%time.Second != 0 {
		t.Errorf("DefaultTimeout = %v, not whole seconds", mcpclient.DefaultTimeout)
	}
}

// TestBudgetsHaveNoEnvLayer: docs/EXTENSIONS.md, Budget exit behavior: "there is
// no ODEK_* env-var layer for limits — sources are the limits config
// section ... and the --max-* CLI flags". An environment variable bound to
// a limits.* key would let the environment a run inherits (a CI job's, a
// wrapper script's) set or lift a budget no config file shows.
func TestBudgetsHaveNoEnvLayer(t *testing.T) {
	n := 0
	for _, s := range table {
		if !strings.HasPrefix(s.Key, "limits.") {
			continue
		}
		n++
		if s.Env != NoEnv || s.EnvAlt != "" {
			t.Errorf("%s has environment variable %q/%q; limits have none", s.Key, s.Env, s.EnvAlt)
		}
	}
	if n == 0 {
		t.Fatal("no limits.* settings in the table")
	}
}
