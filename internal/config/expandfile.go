package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/redact"
)

// minSecretLen is the shortest known secret value matched inside a value
// (the redactor's rule): shorter ones would match unrelated text.
const minSecretLen = 8

// secretGuard decides what the untrusted project file may read: only the
// variables the operator lists in project_env_allow, and of those none with
// a secret-looking name or provided by secrets.env, and no value that is,
// or contains, a secret.
type secretGuard struct {
	c     *Config
	known []string // the API key candidates and the secrets.env values
	allow []string // project_env_allow
}

// projectEnvAllow is project_env_allow from the highest operator layer
// that sets it: the command line, the environment, the global file.
func projectEnvAllow(layers ...*layer) []string {
	i := keyIndex()["project_env_allow"]
	var out []string
	for _, l := range layers {
		if l == nil {
			continue
		}
		if v, ok := l.vals[i].([]string); ok {
			out = v
		}
	}
	return out
}

// newSecretGuard collects the secret values a project file must never
// reach: the keys in the environment, the global api_key and secrets.env.
func newSecretGuard(c *Config, global *layer) *secretGuard {
	g := &secretGuard{c: c}
	for _, name := range []string{"ODEK_API_KEY", "OPENAI_API_KEY"} {
		if v, ok := c.LookupEnv(name); ok {
			g.add(v)
		}
	}
	if global != nil {
		if v, ok := global.vals[keyIndex()["api_key"]].(string); ok {
			g.add(v)
		}
	}
	for _, v := range c.Env {
		g.add(v)
	}
	return g
}

func (g *secretGuard) add(v string) {
	if len(v) >= minSecretLen {
		g.known = append(g.known, v)
	}
}

// secretName reports a variable the project file may not name.
func (g *secretGuard) secretName(name string) bool {
	_, fromSecrets := g.c.Env[name]
	return fromSecrets || redact.IsSecretName(name)
}

// secretValue reports a value that is or holds a secret: one the redactor
// recognises, or one containing a known secret.
func (g *secretGuard) secretValue(v string) bool {
	if v == "" {
		return false
	}
	if redact.String(v) != v {
		return true
	}
	for _, k := range g.known {
		if strings.Contains(v, k) {
			return true
		}
	}
	return false
}

// namesSecret reports whether a string references ($NAME, ${NAME}) a
// variable the project file may not name.
func (g *secretGuard) namesSecret(s string) bool {
	found := false
	Expand(s, func(name string) (string, bool) {
		found = found || g.secretName(name)
		return "", false
	})
	return found
}

// lookup is the ${VAR} lookup for the project file at path. A refused
// reference expands to "" and is reported once, naming the variable but
// never its value.
func (g *secretGuard) lookup(path, globalPath string, warns *[]string) func(string) (string, bool) {
	seen := map[string]bool{}
	return func(name string) (string, bool) {
		v, ok := g.c.LookupEnv(name)
		why := ""
		switch {
		case g.secretName(name):
			why = "a project file cannot read secret variables"
		case !slices.Contains(g.allow, name):
			why = "it is not listed in project_env_allow (which " + globalPath + ", ODEK_PROJECT_ENV_ALLOW or -c can set)"
		case ok && g.secretValue(v):
			why = "its value looks like a secret, and a project file cannot read secrets"
		default:
			return v, ok
		}
		if !seen[name] {
			seen[name] = true
			*warns = append(*warns, fmt.Sprintf("%s: not expanding ${%s}: %s", path, name, why))
		}
		return "", false
	}
}
