package config

import (
	"fmt"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/suggest"
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
	for s := range sectionSet() {
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
	if m := suggest.Nearest(u.name, u.known); m != "" {
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
