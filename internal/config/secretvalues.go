package config

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/odek-run/odek/internal/redact"
)

// SecretValues are the values this config holds that odek must mask
// wherever it writes (cmd/odek registers them with redact.Register): the API
// key, what secrets.env provided, and each MCP server's elicitation answers
// whose field names look secret ("password", "token", "api_key": the rule
// of redact.IsSecretField), since a server or the model may repeat one
// where no field names it. An answer under another name ("confirm",
// "environment") is not a secret by its name and is left alone: masking
// "production" everywhere would blank ordinary text.
func (c *Config) SecretValues() []string {
	out := []string{c.APIKey}
	for _, v := range c.Env {
		out = append(out, v)
	}
	for _, s := range c.MCPServers {
		for name, raw := range s.Config.Elicitation {
			if !redact.IsSecretField(name) {
				continue
			}
			if v, ok := scalarText(raw); ok {
				out = append(out, v)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// scalarText is a JSON string's text or a number's digits.
func scalarText(raw json.RawMessage) (string, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	}
	return "", false
}
