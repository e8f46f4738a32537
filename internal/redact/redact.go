// Package redact removes secrets from text before it reaches the model, the event
// stream or a session file.
//
// Two mechanisms, applied in order: exact values registered at start-up (the API key
// in use, values from secrets.env) and patterns for well-known credential shapes
// (provider keys, bearer tokens, key=value pairs whose name looks secret, PEM
// private keys). Redaction is best effort by nature; it is one layer, not the only
// one (events never carry raw arguments, MCP children get an allowlisted env).
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
	tokenRE = lazyRE(`\b(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9\-]{10,}|AIza[0-9A-Za-z_\-]{35}|glpat-[A-Za-z0-9_\-]{20,})`)
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
	mu.RLock()
	for _, v := range literals {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	mu.RUnlock()
	if strings.Contains(s, "PRIVATE KEY-----") {
		s = pemRE().ReplaceAllString(s, Mask)
	}
	// The regexps cost hundreds of ns per byte; the cheap scans below keep clean
	// text (the common case) from ever reaching them.
	if containsAny(s, tokenPrefixes) {
		s = tokenRE().ReplaceAllString(s, Mask)
	}
	if containsAny(s, authWords) {
		s = authRE().ReplaceAllString(s, "${1}${2}"+Mask)
	}
	return maskKeyValues(s)
}

var (
	tokenPrefixes = []string{"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA", "xox", "AIza", "glpat-"}
	authWords     = []string{"earer", "EARER", "asic", "ASIC"}
	keyWords      = []string{"key", "secret", "token", "passw", "passphrase", "credential", "authorization"}
)

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// maskKeyValues masks the value of every `name: value` / `name=value` pair whose
// name contains a secret-looking word (API_KEY=…, "password": "…"). It jumps from
// separator to separator and looks back at the name, so clean text costs about a
// byte compare per byte; the equivalent case-insensitive regexp costs ~300 ns/byte.
func maskKeyValues(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		k := strings.IndexAny(s[i:], ":=")
		if k < 0 {
			break
		}
		sep := i + k
		i = sep + 1
		if !secretName(nameBefore(s, sep)) {
			continue
		}
		start, end := valueAfter(s, sep+1)
		if end-start < 4 || !secretValue(s[start:end]) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Mask)
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// nameBefore returns the name that ends before the separator at sep, allowing
// blanks and one closing quote in between.
func nameBefore(s string, sep int) string {
	j := sep
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	end := j
	for j > 0 && end-j < 128 && isNameByte(s[j-1]) {
		j--
	}
	return s[j:end]
}

// secretName reports whether name contains a secret-looking word, ignoring case.
func secretName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i] | 0x20
		for _, w := range keyWords {
			if c == w[0] && len(name)-i >= len(w) && foldPrefix(name[i:], w) {
				return true
			}
		}
	}
	return false
}

// valueAfter returns the value that starts after a separator at j: blanks, an
// optional quote, then bytes up to a blank, quote or list separator.
func valueAfter(s string, j int) (int, int) {
	j = skipBlanks(s, j)
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	k := j
	for k < len(s) && !isValueEnd(s[k]) {
		k++
	}
	return j, k
}

func isValueEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '"', '\'', ',', ';', '&':
		return true
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

func skipBlanks(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return j
}

// secretValue rejects values that are already masked and the scheme word of an
// Authorization header (its credential is masked by authRE).
func secretValue(v string) bool {
	return !strings.HasPrefix(v, Mask) && !strings.EqualFold(v, "bearer") && !strings.EqualFold(v, "basic")
}

func foldPrefix(s, w string) bool {
	for j := 1; j < len(w); j++ {
		if s[j]|0x20 != w[j] {
			return false
		}
	}
	return true
}
