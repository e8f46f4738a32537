package redact

import (
	"bytes"
	"strings"
	"sync"
)

// secretNameWords make a name secret-looking once it is uppercased and
// stripped of '-' and '_' (so api_key, API-KEY and ApiKey all match APIKEY).
// It is the one list behind IsSecretName, which config's ${VAR} expansion
// and the MCP child environment both use.
//
// DSN (SENTRY_DSN, DATABASE_DSN), JWT (CI_JOB_JWT) and WEBHOOK
// (SLACK_WEBHOOK_URL) name values that are credentials themselves.
var secretNameWords = [][]byte{
	[]byte("APIKEY"), []byte("TOKEN"), []byte("SECRET"), []byte("PASSWORD"),
	[]byte("CREDENTIAL"), []byte("CREDS"), []byte("PRIVATEKEY"), []byte("ACCESSKEY"),
	[]byte("PASSWD"), []byte("PASSPHRASE"), []byte("COOKIE"), []byte("AUTHORIZATION"),
	[]byte("DSN"), []byte("JWT"), []byte("WEBHOOK"),
}

// secretSegments make a name secret-looking when one of its '_'/'-'
// separated parts is one of them, ignoring case: AUTH is a credential in
// NPM_CONFIG__AUTH, DOCKER_AUTH_CONFIG and a registry's "auth" field, but
// only as a whole part, since AUTHOR and OAUTH_CLIENT_ID are not.
var secretSegments = []string{"AUTH"}

// SecretNameWords returns the words IsSecretName looks for, for docs and
// tests; the whole-part words (SecretNameSegments) are not among them.
func SecretNameWords() []string {
	out := make([]string, len(secretNameWords))
	for i, w := range secretNameWords {
		out[i] = string(w)
	}
	return out
}

// SecretNameSegments returns the words that make a name secret-looking
// only as a whole '_'- or '-'-separated part, for docs and tests.
func SecretNameSegments() []string { return append([]string(nil), secretSegments...) }

// hasSecretSegment reports whether one '_'/'-' separated part of name is
// a secretSegments word, ignoring ASCII case.
func hasSecretSegment(name string) bool {
	for len(name) > 0 {
		i := strings.IndexAny(name, "_-")
		part := name
		if i >= 0 {
			part, name = name[:i], name[i+1:]
		} else {
			name = ""
		}
		for _, w := range secretSegments {
			if strings.EqualFold(part, w) {
				return true
			}
		}
	}
	return false
}

// stackName is the name length normalized without a heap allocation
// (append moves a longer one to the heap).
const stackName = 256

// IsSecretName reports whether an environment variable or field name looks
// like it carries a credential: uppercased and stripped of '-' and '_', it
// contains one of the words of SecretNameWords, or one of its parts is a
// word of SecretNameSegments. Such names never reach an MCP server's
// environment and are never expanded from a project file.
func IsSecretName(name string) bool {
	var buf [stackName]byte
	return containsWord(normalizeName(buf[:0], name), secretNameIndex()) || hasSecretSegment(name)
}

// normalizeName appends name to dst uppercased (ASCII; the names that
// matter, of real environment variables, are ASCII), without '-' and '_'.
func normalizeName(dst []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-' || c == '_':
			continue
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// wordIndex lists words by their first byte, so a name is compared only
// where a word could start.
type wordIndex [256][][]byte

func indexWords(words [][]byte) *wordIndex {
	var ix wordIndex
	for _, w := range words {
		ix[w[0]] = append(ix[w[0]], w)
	}
	return &ix
}

// secretNameIndex is built on first use: a process that redacts nothing
// (odek version) does not build it at init (issue 23).
var secretNameIndex = sync.OnceValue(func() *wordIndex { return indexWords(secretNameWords) })

// containsWord reports whether the normalized name n contains a word of ix.
func containsWord(n []byte, ix *wordIndex) bool {
	for i, c := range n {
		for _, w := range ix[c] {
			if bytes.HasPrefix(n[i:], w) {
				return true
			}
		}
	}
	return false
}
