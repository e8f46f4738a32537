package subagent

import (
	"slices"
	"strconv"
	"strings"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// childEnv is the environment of a child: the parent's, minus the names
// secrets.env defines, minus every name secret reports as credential-like,
// minus any inherited depth or key-descriptor setting, plus the child's depth
// and (when a key is handed over) ODEK_API_KEY_FD=3. The key itself is never
// in it.
func childEnv(parent []string, secretNames []string, secret func(string) bool, depth int, withKey bool) []string {
	out := make([]string, 0, len(parent)+2)
	for _, kv := range parent {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		switch {
		case name == wire.EnvDepth, name == wire.EnvAPIKeyFD:
		case slices.Contains(secretNames, name):
		case secret != nil && secret(name):
		default:
			out = append(out, kv)
		}
	}
	out = append(out, wire.EnvDepth+"="+strconv.Itoa(depth))
	if withKey {
		out = append(out, wire.EnvAPIKeyFD+"="+strconv.Itoa(wire.KeyFD))
	}
	return out
}
