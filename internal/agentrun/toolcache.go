package agentrun

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/odek-run/odek/internal/atomicfile"
	"github.com/odek-run/odek/internal/mcpclient"
)

// toolCacheFile, under $ODEK_HOME, remembers the tool names each MCP server
// listed when it last started, so shell completion can offer them without
// starting a server (which may be slow, and would need approvals). It is
// rebuilt by any run or `odek tools`; losing it costs completions only.
const toolCacheFile = "cache/tool-names.json"

// ToolCache is the file's content: server name → its tools' names.
type ToolCache struct {
	Servers map[string][]string `json:"servers"`
}

// Completable reports whether a name may be cached and offered to a shell
// (a server's tool names are untrusted text): 1 to 128 bytes of A-Z, a-z,
// 0-9, '_', '.' and '-'. A loop rather than a regexp: the regexp, with its
// bounded repetition, was compiled at every process start (0.27 ms, 118 KB,
// 1,695 allocations) even by `odek version`.
func Completable(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

// ReadToolCache reads the cache under home: empty when it is missing or
// broken (it is rebuilt by the next run).
func ReadToolCache(home string) ToolCache {
	var c ToolCache
	if b, err := os.ReadFile(filepath.Join(home, toolCacheFile)); err == nil {
		_ = json.Unmarshal(b, &c) // a broken cache is an empty one
	}
	if c.Servers == nil {
		c.Servers = map[string][]string{}
	}
	return c
}

// rememberTools records what the started servers listed; the file is only
// written when that changed. Failures are ignored: it is a cache.
func rememberTools(home string, set *mcpclient.Set) {
	if set == nil || home == "" {
		return
	}
	c := ReadToolCache(home)
	next := ToolCache{Servers: maps.Clone(c.Servers)}
	for _, cl := range set.Clients() {
		next.Servers[cl.Name()] = []string{}
	}
	for _, q := range set.Discovered() {
		server, tool, ok := cutQualified(q)
		if ok && Completable(tool) {
			next.Servers[server] = append(next.Servers[server], tool)
		}
	}
	if maps.EqualFunc(c.Servers, next.Servers, slices.Equal) {
		return
	}
	b, err := json.Marshal(next)
	if err != nil {
		return
	}
	path := filepath.Join(home, toolCacheFile)
	if os.MkdirAll(filepath.Dir(path), 0o700) == nil {
		_ = atomicfile.WriteCache(path, append(b, '\n'), 0o600)
	}
}

// cutQualified splits <server>__<tool>; server names never contain "__".
func cutQualified(q string) (server, tool string, ok bool) {
	for i := 0; i+1 < len(q); i++ {
		if q[i] == '_' && q[i+1] == '_' {
			return q[:i], q[i+2:], i > 0 && i+2 < len(q)
		}
	}
	return "", "", false
}
