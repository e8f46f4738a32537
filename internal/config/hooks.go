package config

import (
	"encoding/json"

	"github.com/odek-run/odek/internal/hooks"
)

// parseHooks decodes the hooks setting with its own parser: Claude Code's
// shape, commands kept verbatim ($CLAUDE_PROJECT_DIR is for the shell).
func parseHooks(raw json.RawMessage) (any, []string, error) {
	c, warns, err := hooks.Parse(raw)
	if err != nil {
		return nil, nil, err
	}
	return c, warns, nil
}

// layerHooks is a file layer's hooks; nil for a missing layer or none.
func layerHooks(l *layer) hooks.Config {
	if l == nil {
		return nil
	}
	c, _ := l.vals[keyIndex()["hooks"]].(hooks.Config)
	if c.Empty() {
		return nil
	}
	return c
}
