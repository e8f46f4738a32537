package mcpclient

import (
	"sort"
	"strings"

	"github.com/odek-run/odek/internal/redact"
)

// allowedEnv is the only part of odek's environment a server inherits. Anything
// else (API keys, cloud credentials, CI tokens) must be passed explicitly in
// the server's env, and even then secret-looking names are refused.
var allowedEnv = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TMPDIR": true,
	"LANG": true, "LC_ALL": true, "LC_CTYPE": true, "LC_MESSAGES": true, "LC_NUMERIC": true,
	"LC_TIME": true, "LC_COLLATE": true, "LC_MONETARY": true, "LC_PAPER": true, "LC_NAME": true,
	"LC_ADDRESS": true, "LC_TELEPHONE": true, "LC_MEASUREMENT": true, "LC_IDENTIFICATION": true,
	"TZ": true, "TERM": true,
}

// secretLookingName reports whether an environment variable name looks like it
// carries a credential; such names never reach an MCP server. It is
// redact.IsSecretName, the one list shared with the config loader.
func secretLookingName(name string) bool { return redact.IsSecretName(name) }

// childEnv builds a server's environment: the allowlisted part of parent, then
// overrides ("" unsets). It returns the names of overrides it refused, sorted.
func childEnv(parent []string, overrides map[string]string) (env []string, refused []string) {
	vals := map[string]string{}
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if ok && allowedEnv[k] && !secretLookingName(k) {
			vals[k] = v
		}
	}
	for k, v := range overrides {
		switch {
		case k == "" || strings.ContainsAny(k, "=\x00") || strings.Contains(v, "\x00") || secretLookingName(k):
			refused = append(refused, k)
		case v == "":
			delete(vals, k)
		default:
			vals[k] = v
		}
	}
	for k, v := range vals {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	sort.Strings(refused)
	return env, refused
}

// withTmpDir points TMPDIR at a sandboxed server's private temp dir: the
// rest of /tmp is not writable for it.
func withTmpDir(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+dir)
}
