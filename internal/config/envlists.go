package config

import (
	"fmt"
	"slices"
	"strings"
)

// checkEnvNames validates a list of environment variable names
// (project_env_allow): each [A-Za-z_][A-Za-z0-9_]*.
func checkEnvNames(v any) error {
	for _, n := range v.([]string) {
		if nameLen(n) != len(n) || n == "" {
			return fmt.Errorf("%q is not an environment variable name (want [A-Za-z_][A-Za-z0-9_]*)", n)
		}
	}
	return nil
}

// checkPassthrough validates shell.env_passthrough: names, or a name
// prefix followed by "*". A lone "*" is refused: it would hand commands
// every secret in odek's environment.
func checkPassthrough(v any) error {
	for _, p := range v.([]string) {
		n, _ := strings.CutSuffix(p, "*")
		if n == "" || nameLen(n) != len(n) {
			return fmt.Errorf("%q is not a variable name or a name prefix ending in \"*\" (a lone \"*\" is not allowed: list what commands need)", p)
		}
	}
	return nil
}

// narrowPassthrough is shell.env_passthrough's rule: a project entry counts
// only where the current list already allows it (the same entry, or a name
// one of its prefixes covers), so a project file can remove names but
// never add one.
func narrowPassthrough(cur, project any, _ string) (any, []ignored) {
	c, p := cur.([]string), project.([]string)
	out := []string{}
	var drop []ignored
	for _, e := range p {
		if slices.Contains(c, e) || (!strings.HasSuffix(e, "*") && passthroughCovers(c, e)) {
			out = append(out, e)
			continue
		}
		drop = append(drop, ignored{"shell.env_passthrough", fmt.Sprintf("%q is not in the operator's list; a project file may only narrow it", e)})
	}
	return out, drop
}

// passthroughCovers reports whether a prefix entry of list covers name.
func passthroughCovers(list []string, name string) bool {
	for _, e := range list {
		if prefix, ok := strings.CutSuffix(e, "*"); ok && strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}
