package redact

import "strings"

// maskURLPasswords masks the password of every URL that carries one in its
// userinfo (postgres://app:pw@db/app, https://user:pw@host/): the bytes
// between the first ':' after "://" and the last '@' of the authority. A
// userinfo without a password that looks like a token (a Sentry DSN's key,
// https://<token>@github.com: see tokenUser) is masked whole. A
// password written with a raw '/', '?' or '#' (not percent-encoded) ends the
// authority early; then the last '@' before the end of the URL counts, unless
// what follows the ':' is a port. The user name stays, as it names which
// credential was used, not the credential itself.
func maskURLPasswords(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		k := strings.Index(s[i:], "://")
		if k < 0 {
			break
		}
		auth := i + k + len("://")
		from, to, next := userinfoPassword(s, auth)
		i = next
		if from == to || strings.HasPrefix(s[from:to], Mask) {
			continue
		}
		b.WriteString(s[last:from])
		b.WriteString(Mask)
		last = to
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// userinfoPassword finds the password of the URL whose authority starts at
// auth: it lies in s[from:to] (empty when there is none), and scanning goes
// on at next.
func userinfoPassword(s string, auth int) (from, to, next int) {
	end := urlEnd(s, auth, true)
	colon := strings.IndexByte(s[auth:end], ':')
	at := strings.LastIndexByte(s[auth:end], '@')
	switch {
	case at >= 0 && (colon < 0 || colon > at) && tokenUser(s[auth:auth+at]):
		return auth, auth + at, end
	case colon < 0:
		return 0, 0, end
	case at > colon:
		return auth + colon + 1, auth + at, end
	case at >= 0 || end == len(s) || isPort(s[auth+colon+1:end]):
		return 0, 0, end
	}
	// A raw '/', '?' or '#' in the password: look for the '@' further on.
	far := urlEnd(s, end, false)
	at = strings.LastIndexByte(s[end:far], '@')
	if at < 0 {
		return 0, 0, end
	}
	return auth + colon + 1, end + at, end + at
}

// urlEnd returns where the URL text that goes on at i ends: at a byte that
// cannot be part of a URL in text, or (authority) also at a path, query or
// fragment.
func urlEnd(s string, i int, authority bool) int {
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ', c == 0x7f, c == '"', c == '\'', c == '<', c == '>', c == '\\', c == '`':
			return i
		case authority && (c == '/' || c == '?' || c == '#'):
			return i
		}
	}
	return i
}

// isPort reports whether p is a port number (or empty, as in "host:/").
func isPort(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return true
}

// tokenUser reports a URL user name that is a credential rather than a
// name: at least 20 bytes of [A-Za-z0-9_-] holding both a letter and a
// digit (a Sentry key is 32 hex digits; "git" and "firstname.lastname"
// stay).
func tokenUser(u string) bool {
	if len(u) < 20 {
		return false
	}
	letter, digit := false, false
	for i := 0; i < len(u); i++ {
		switch c := u[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c|0x20 >= 'a' && c|0x20 <= 'z':
			letter = true
		case c == '_' || c == '-':
		default:
			return false
		}
	}
	return letter && digit
}
