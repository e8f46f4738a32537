package redact

import "strings"

// secretNameWords mark a variable name as credential-bearing once the name
// is uppercased and stripped of '-' and '_' (so api_key, API-KEY and ApiKey
// all match).
var secretNameWords = []string{
	"APIKEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "CREDS", "PRIVATEKEY",
	"ACCESSKEY", "PASSWD", "PASSPHRASE", "COOKIE", "AUTHORIZATION",
}

// IsSecretName reports whether an environment variable name looks like it
// carries a credential. It is the one list odek uses for names: the MCP
// child environment drops such variables, and a project config file may not
// expand or name them.
func IsSecretName(name string) bool {
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-' || c == '_':
			continue
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		b.WriteByte(c)
	}
	n := b.String()
	for _, w := range secretNameWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
