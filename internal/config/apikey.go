package config

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
)

// RequireAPIKey reports a missing API key as a setup error (exit 3), except
// for a loopback endpoint: local servers such as Ollama or vLLM need no key.
// It is separate from Load because commands that never call the model
// (session list, init) must work without a key.
func (c *Config) RequireAPIKey() error {
	if c.APIKey != "" || isLoopbackURL(c.BaseURL) {
		return nil
	}
	global := "~/.odek/config.json"
	if c.Home != "" {
		global = filepath.Join(c.Home, "config.json")
	}
	return &SetupError{
		Msg: fmt.Sprintf("no API key: set ODEK_API_KEY (or OPENAI_API_KEY), or put \"api_key\" in %s", global),
		Err: ErrNoAPIKey,
	}
}

// isLoopbackURL reports whether raw points at this machine: localhost,
// *.localhost, or a loopback IP literal. Names are not resolved, so DNS
// cannot turn a remote endpoint into a "local" one.
func isLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
