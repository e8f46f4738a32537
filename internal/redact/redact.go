// Package redact removes secrets from text before it reaches the model, the event
// stream or a session file.
//
// Two mechanisms, applied in order: exact values registered at start-up (the API key
// in use, values from secrets.env) and patterns for well-known credential shapes
// (PEM private keys, provider keys, JWTs, Slack and Discord webhook URLs, bearer
// and basic credentials, URL passwords and token-like URL user names, key=value
// pairs whose name looks secret, also inside JSON-escaped strings, a quoted value
// whole and each quoted string of a list value, and bare AWS secret keys). Field
// applies the pair rule where a name and its value are kept apart (a decoded JSON
// member); Examples holds one secret of every shape, for callers' tests. A bare 40-digit hex run is not masked: in tool output it is a
// git commit hash far more often than a token, and a labelled one
// (GH_TOKEN=…) is masked by its name. Each pattern sits behind a cheap scan, so clean text costs
// a few byte compares per byte. Redaction is best effort by nature; it is one
// layer, not the only one (events never carry raw arguments, MCP children get an
// allowlisted env).
//
// IsSecretName is the one list of secret-looking names, shared by config's
// ${VAR} expansion and the MCP child environment.
package redact

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Mask replaces every redacted value.
const Mask = "[REDACTED]"

// minLiteral keeps short registered values (e.g. "1") from blanking unrelated text.
const minLiteral = 8

var (
	// The patterns compile on first use: most runs never see text that
	// passes the cheap pre-checks, so start-up does not pay for them.
	//
	// A key starts the text or follows a byte that is not a letter or digit:
	// "_" counts as a boundary, so server__ghp_… (a tool name) is caught,
	// while task-… does not read as sk-….
	tokenRE = lazyRE(`(^|[^A-Za-z0-9])(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9\-]{10,}|AIza[0-9A-Za-z_\-]{35}|glpat-[A-Za-z0-9_\-]{20,}|npm_[A-Za-z0-9]{36}|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}|hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{8,}|discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_\-]{8,})`)
	authRE  = lazyRE(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{8,}`)
	pemRE   = lazyRE(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`)
)

func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var (
	mu       sync.RWMutex
	literals []string // longest first, so a value that contains another is masked whole
)

// Register adds exact secret values (API keys, secrets.env values) to mask
// everywhere. Values shorter than 8 bytes are ignored.
func Register(values ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, v := range values {
		if len(v) >= minLiteral && !contains(literals, v) {
			literals = append(literals, v)
		}
	}
	sort.Slice(literals, func(i, j int) bool { return len(literals[i]) > len(literals[j]) })
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// String returns s with every secret it recognises replaced by Mask.
func String(s string) string {
	if s == "" {
		return s
	}
	s = maskLiterals(s)
	if strings.Contains(s, "PRIVATE KEY-----") {
		s = pemRE().ReplaceAllString(s, Mask)
	}
	// The regexps cost hundreds of ns per byte; the cheap scans below keep clean
	// text (the common case) from ever reaching them.
	if containsAny(s, tokenPrefixes) {
		s = tokenRE().ReplaceAllString(s, "${1}"+Mask)
	}
	if containsAny(s, authWords) {
		s = authRE().ReplaceAllString(s, "${1}${2}"+Mask)
	}
	if strings.Contains(s, "://") {
		s = maskURLPasswords(s)
	}
	return maskAWSSecrets(maskKeyValues(s))
}

// maskLiterals masks the registered values, longest first.
func maskLiterals(s string) string {
	mu.RLock()
	defer mu.RUnlock()
	for _, v := range literals {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return s
}

var (
	tokenPrefixes = []string{"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA", "ASIA", "xox", "AIza", "glpat-",
		"npm_", "eyJ", "hooks.slack.com/", "/api/webhooks/"}
	authWords = []string{"earer", "EARER", "asic", "ASIC"}
)

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
