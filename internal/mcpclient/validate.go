package mcpclient

import (
	"fmt"
	"time"
)

// ConfigError is an invalid server configuration; the server is not started.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

// ErrorClass marks configuration problems as setup errors (exit 3).
func (e *ConfigError) ErrorClass() string { return ClassSetup }

// limits are a server's effective, validated bounds.
type limits struct {
	timeout  time.Duration
	maxCall  time.Duration // a tools/call that reports progress ends here at the latest
	maxResp  int64
	maxChars int
}

// checkConfig validates cfg and resolves defaults. Values over a hard cap are
// clamped with a warning, except max_response_bytes: raising it past the
// ceiling is refused, because that cap is what bounds odek's memory.
func checkConfig(name string, cfg ServerConfig) (limits, []string, error) {
	bad := func(format string, a ...any) (limits, []string, error) {
		return limits{}, nil, &ConfigError{Msg: fmt.Sprintf(format, a...)}
	}
	if !validName(name) {
		return bad("mcpclient: invalid server name %q: must be 1-64 characters of [A-Za-z0-9_-] without \"__\"", name)
	}
	switch {
	case cfg.Command == "" && cfg.URL == "":
		return bad("mcpclient %s: server config must set either url or command", name)
	case cfg.Command != "" && cfg.URL != "":
		return bad("mcpclient %s: server config must set either url or command, not both", name)
	case cfg.TimeoutSeconds < 0:
		return bad("mcp server %q: timeout_seconds %d must not be negative", name, cfg.TimeoutSeconds)
	case cfg.MaxResponseBytes < 0:
		return bad("mcp server %q: max_response_bytes %d must not be negative", name, cfg.MaxResponseBytes)
	case cfg.MaxCallSeconds < 0:
		return bad("mcp server %q: max_call_seconds %d must not be negative", name, cfg.MaxCallSeconds)
	case cfg.MaxResultChars < 0:
		return bad("mcp server %q: max_result_chars %d must not be negative", name, cfg.MaxResultChars)
	case cfg.Sandbox != "" && cfg.Sandbox != "workspace-write" && cfg.Sandbox != "read-only" && cfg.Sandbox != "off":
		return bad("mcp server %q: sandbox %q is not one of workspace-write, read-only, off", name, cfg.Sandbox)
	case cfg.MaxResponseBytes > MaxResponseBytesCeiling:
		return bad("mcp server %q: max_response_bytes %d exceeds the %d-byte ceiling", name, cfg.MaxResponseBytes, MaxResponseBytesCeiling)
	}
	var warn []string
	l := limits{timeout: DefaultTimeout, maxResp: DefaultMaxResponseBytes, maxChars: DefaultMaxResultChars}
	if cfg.TimeoutSeconds > MaxTimeoutSeconds {
		warn = append(warn, fmt.Sprintf("mcp server %q: timeout_seconds %d exceeds the hard cap; clamped to %d", name, cfg.TimeoutSeconds, MaxTimeoutSeconds))
		cfg.TimeoutSeconds = MaxTimeoutSeconds
	}
	if cfg.TimeoutSeconds > 0 {
		l.timeout = time.Duration(cfg.TimeoutSeconds) * time.Second
	}
	if cfg.MaxResponseBytes > 0 {
		l.maxResp = cfg.MaxResponseBytes
	}
	if cfg.MaxCallSeconds > MaxTimeoutSeconds {
		warn = append(warn, fmt.Sprintf("mcp server %q: max_call_seconds %d exceeds the hard cap; clamped to %d", name, cfg.MaxCallSeconds, MaxTimeoutSeconds))
		cfg.MaxCallSeconds = MaxTimeoutSeconds
	}
	l.maxCall = max(DefaultMaxCallSeconds*time.Second, l.timeout)
	if cfg.MaxCallSeconds > 0 {
		l.maxCall = max(time.Duration(cfg.MaxCallSeconds)*time.Second, l.timeout)
	}
	if cfg.MaxResultChars > MaxResultCharsCap {
		warn = append(warn, fmt.Sprintf("mcp server %q: max_result_chars %d exceeds the hard cap; clamped to %d", name, cfg.MaxResultChars, MaxResultCharsCap))
		cfg.MaxResultChars = MaxResultCharsCap
	}
	if cfg.MaxResultChars > 0 {
		l.maxChars = cfg.MaxResultChars
	}
	return l, warn, nil
}

// validName is the rule for server and tool names: 1-64 of [A-Za-z0-9_-] and
// no "__", which is reserved as the <server>__<tool> separator.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		if !ok || c == '_' && i > 0 && s[i-1] == '_' {
			return false
		}
	}
	return true
}
