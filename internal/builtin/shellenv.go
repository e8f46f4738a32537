package builtin

import (
	"slices"
	"strings"
)

// BaseEnv names the variables the shell tool inherits from odek's
// environment whatever the configuration: what commands need to find
// programs, files, a locale and the usual tool caches, and nothing that
// carries a credential. Proxy variables and GOPROXY are left out because
// their URLs may hold a password; list them in shell.env_passthrough.
var BaseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "LC_*", "TZ",
	"TMPDIR", "TMP", "TEMP", "NO_COLOR", "CI",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN", "GO111MODULE",
	"CARGO_HOME", "RUSTUP_HOME",
	"npm_config_cache", "NPM_CONFIG_CACHE", "YARN_CACHE_FOLDER", "PNPM_HOME",
	"PIP_CACHE_DIR", "VIRTUAL_ENV", "JAVA_HOME", "GRADLE_USER_HOME",
}

// EnvOptions say what the shell's environment may hold beyond BaseEnv.
type EnvOptions struct {
	// Passthrough are further names (shell.env_passthrough), each exact or
	// a prefix ending in "*" ("MYAPP_*").
	Passthrough []string
	// Drop are values never passed, whatever the name: the API key in use.
	Drop []string
}

// ShellEnv is the environment shell commands get: the variables of environ
// (KEY=VALUE) whose names BaseEnv or o.Passthrough allow, in environ's
// order, less any holding a value of o.Drop. Everything else, secrets
// above all, stays out: an allowlist, not a list of secret shapes.
func ShellEnv(environ []string, o EnvOptions) []string {
	out := make([]string, 0, len(BaseEnv)+len(o.Passthrough))
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if !matchEnv(BaseEnv, name) && !matchEnv(o.Passthrough, name) {
			continue
		}
		if val != "" && slices.Contains(o.Drop, val) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// matchEnv reports whether name is one of patterns: equal, or starting
// with the part of a pattern before its trailing "*".
func matchEnv(patterns []string, name string) bool {
	for _, p := range patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if prefix != "" && strings.HasPrefix(name, prefix) {
				return true
			}
		} else if p == name {
			return true
		}
	}
	return false
}
