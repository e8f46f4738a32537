package config

import (
	"slices"
	"testing"
)

// Issue 34.11: the elicitation answers under secret names join the values
// odek masks; the others, and disabled servers' answers, do not.
func TestSecretValues(t *testing.T) {
	t.Parallel()
	c, _ := fixture{
		global: `{"api_key": "sk-config-key-000000000000", "mcp_servers": {
			"vault": {"command": "vault-mcp", "elicitation": {"password": "correct horse battery", "api_token": 12345678901,
				"confirm": true, "environment": "production", "options": {"token": "not-a-scalar-answer"}}},
			"off": {"command": "x", "enabled": false, "elicitation": {"password": "disabled-server-answer"}}}}`,
		secrets: "DEPLOY_TOKEN=from-secrets-env-0001\n",
	}.mustLoad(t)
	got := c.SecretValues()
	for _, want := range []string{"sk-config-key-000000000000", "from-secrets-env-0001", "correct horse battery", "12345678901"} {
		if !slices.Contains(got, want) {
			t.Errorf("SecretValues() = %q: %q missing", got, want)
		}
	}
	for _, not := range []string{"production", "true", "disabled-server-answer", "not-a-scalar-answer"} {
		if slices.Contains(got, not) {
			t.Errorf("SecretValues() = %q holds %q", got, not)
		}
	}
}
