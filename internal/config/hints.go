package config

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// unknownKey is a key odek does not know, with the names it might have meant.
type unknownKey struct {
	prefix, name string   // the key is prefix+name
	known        []string // the names valid at prefix
}

// children maps a section prefix ("" for the top, "limits.", ...) to the
// names of the settings and sections directly inside it. It is built on
// first use, after the table's init.
var children = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	add := func(key string) {
		prefix, name := "", key
		if i := strings.LastIndexByte(key, '.'); i >= 0 {
			prefix, name = key[:i+1], key[i+1:]
		}
		m[prefix] = append(m[prefix], name)
	}
	for i := range table {
		add(table[i].Key)
	}
	for s := range sections {
		add(s)
	}
	return m
})

// hints are explicit answers for keys other tools use.
var hints = map[string]string{
	"mcpServers":              `odek reads "mcp_servers" (the Claude Code name "mcpServers" is not read)`,
	"mcp_servers.*.headers":   `odek sends one Bearer token, read from the variable token_env names; other headers are not supported`,
	"mcp_servers.*.disabled":  `odek reads "enabled": false`,
	"mcp_servers.*.transport": `odek picks the transport from "command" (stdio) or "url" (Streamable HTTP)`,
	"mcp_servers.*.cwd":       `odek starts a server in the working directory; use an absolute command path`,
}

// warning is the warning text for the file path.
func (u unknownKey) warning(path string) string {
	key := u.prefix + u.name
	w := fmt.Sprintf("unknown key %q in %s", key, path)
	if h := hintFor(u.prefix, u.name); h != "" {
		return w + ": " + h
	}
	if m := closest(u.name, u.known); m != "" {
		return fmt.Sprintf("%s; did you mean %q?", w, u.prefix+m)
	}
	return w
}

// hintFor finds an explicit hint; a server's name is written as "*".
func hintFor(prefix, name string) string {
	if h, ok := hints[prefix+name]; ok {
		return h
	}
	if rest, ok := strings.CutPrefix(prefix, "mcp_servers."); ok && strings.Count(rest, ".") == 1 {
		return hints["mcp_servers.*."+name]
	}
	return ""
}

// closest returns the known name nearest to name by edit distance, if it
// is near enough to be a typo: ignoring case, at most one edit for short
// names and two for names of five or more characters.
func closest(name string, known []string) string {
	limit := 1
	if len(name) >= 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	for _, k := range sorted {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
