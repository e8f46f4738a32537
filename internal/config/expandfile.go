package config

import (
	"fmt"

	"github.com/odek-run/odek/internal/redact"
)

// projectLookup is the ${VAR} lookup for the untrusted project file: it
// refuses secret-looking names and names secrets.env provided, so a
// repository cannot route the operator's credentials into a server URL or
// argument. Each refused name is reported once.
func projectLookup(c *Config, path string, warns *[]string) func(string) (string, bool) {
	seen := map[string]bool{}
	return func(name string) (string, bool) {
		_, fromSecrets := c.Env[name]
		if !fromSecrets && !redact.IsSecretName(name) {
			return c.LookupEnv(name)
		}
		if !seen[name] {
			seen[name] = true
			*warns = append(*warns, fmt.Sprintf("%s: not expanding ${%s}: a project file cannot read secret variables", path, name))
		}
		return "", false
	}
}
