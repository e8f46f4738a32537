package mcpclient

import (
	"fmt"
	"time"
)

// configError is an invalid server configuration; the server is not started.
type configError struct{ Msg string }

func (e *configError) Error() string { return e.Msg }

// ErrorClass marks configuration problems as setup errors (exit 3).
func (e *configError) ErrorClass() string { return classSetup }

// limits are a server's effective, validated bounds.
type limits struct {
	timeout  time.Duration // each request, and each tool call whole
	idle     time.Duration // a tool call without progress for this long fails; 0 = none
	maxResp  int64
	maxChars int
	restarts int // restart_limit in force
}

// checkConfig validates cfg and resolves defaults. Values over a hard cap are
// clamped with a warning, except max_response_bytes: raising it past the
// ceiling is refused, because that cap is what bounds odek's memory.
func checkConfig(name string, cfg ServerConfig) (limits, []string, error) {
	bad := func(format string, a ...any) (limits, []string, error) {
		return limits{}, nil, &configError{Msg: fmt.Sprintf(format, a...)}
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
	case cfg.IdleTimeoutSeconds < 0:
		return bad("mcp server %q: idle_timeout_seconds %d must not be negative", name, cfg.IdleTimeoutSeconds)
	case cfg.MaxResultChars < 0:
		return bad("mcp server %q: max_result_chars %d must not be negative", name, cfg.MaxResultChars)
	case cfg.Sandbox != "" && cfg.Sandbox != "workspace-write" && cfg.Sandbox != "read-only" && cfg.Sandbox != "off":
		return bad("mcp server %q: sandbox %q is not one of workspace-write, read-only, off", name, cfg.Sandbox)
	case cfg.MaxResponseBytes > MaxResponseBytesCeiling:
		return bad("mcp server %q: max_response_bytes %d exceeds the %d-byte ceiling", name, cfg.MaxResponseBytes, MaxResponseBytesCeiling)
	case cfg.RestartLimit != nil && *cfg.RestartLimit < 0:
		return bad("mcp server %q: restart_limit %d must not be negative", name, *cfg.RestartLimit)
	}
	if msg := checkOAuth(cfg); msg != "" {
		return bad("mcp server %q: %s", name, msg)
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
	l.idle, warn = idleLimit(name, cfg.IdleTimeoutSeconds, l.timeout, warn)
	if cfg.MaxCallSeconds != 0 {
		warn = append(warn, retiredMaxCall(name, l.timeout))
	}
	if cfg.MaxResultChars > MaxResultCharsCap {
		warn = append(warn, fmt.Sprintf("mcp server %q: max_result_chars %d exceeds the hard cap; clamped to %d", name, cfg.MaxResultChars, MaxResultCharsCap))
		cfg.MaxResultChars = MaxResultCharsCap
	}
	if cfg.MaxResultChars > 0 {
		l.maxChars = cfg.MaxResultChars
	}
	l.restarts = defaultRestartLimit
	if cfg.RestartLimit != nil {
		l.restarts = *cfg.RestartLimit
	}
	if l.restarts > maxRestartLimit {
		warn = append(warn, fmt.Sprintf("mcp server %q: restart_limit %d exceeds the hard cap; clamped to %d", name, l.restarts, maxRestartLimit))
		l.restarts = maxRestartLimit
	}
	return l, warn, nil
}

// checkOAuth says what is wrong with an oauth block, "" when nothing is.
func checkOAuth(cfg ServerConfig) string {
	o := cfg.OAuth
	if o == nil {
		return ""
	}
	n := 0
	for _, v := range []string{o.ClientSecretEnv, o.ClientSecretFile, o.PrivateKeyFile} {
		if v != "" {
			n++
		}
	}
	switch {
	case cfg.URL == "":
		return "oauth logs in to a url server; a command server has no use for it"
	case cfg.TokenEnv != "":
		return "set either token_env or oauth, not both"
	case o.ClientID == "":
		return "oauth.client_id is required"
	case n != 1:
		return "oauth needs exactly one of client_secret_env, client_secret_file, private_key_file"
	}
	return ""
}

// idleLimit resolves idle_timeout_seconds: clamped to the hard cap, and
// dropped (with a warning) when it is not below the call's own deadline,
// which it could never shorten.
func idleLimit(name string, secs int, timeout time.Duration, warn []string) (time.Duration, []string) {
	if secs > MaxTimeoutSeconds {
		warn = append(warn, fmt.Sprintf("mcp server %q: idle_timeout_seconds %d exceeds the hard cap; clamped to %d", name, secs, MaxTimeoutSeconds))
		secs = MaxTimeoutSeconds
	}
	idle := time.Duration(secs) * time.Second
	if idle > 0 && idle >= timeout {
		warn = append(warn, fmt.Sprintf("mcp server %q: idle_timeout_seconds %d is not below timeout_seconds %d, the deadline of the whole call; it has no effect",
			name, secs, int(timeout/time.Second)))
		return 0, warn
	}
	return idle, warn
}

// retiredMaxCall is the warning for a config that still sets
// max_call_seconds, which progress used to stretch calls to.
func retiredMaxCall(name string, timeout time.Duration) string {
	return fmt.Sprintf("mcp server %q: max_call_seconds is retired and ignored: timeout_seconds (%d) is the deadline of each tool call whole, "+
		"progress included; raise timeout_seconds to the longest a call may take, and set idle_timeout_seconds to fail a call that goes quiet sooner",
		name, int(timeout/time.Second))
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
