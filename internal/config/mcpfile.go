package config

import (
	"sort"

	"github.com/odek-run/odek/internal/mcpclient"
)

// AddMCPConfig records a --mcp-config file: a file that holds only
// mcp_servers, read with the operator's trust (as the global file is), so
// a CI job can name its servers without a config file. Later files beat
// earlier ones and the global file for a server of the same name.
func (o *Overrides) AddMCPConfig(path string) { o.mcpFiles = append(o.mcpFiles, path) }

// MCPConfigFiles returns the --mcp-config files, in order.
func (o Overrides) MCPConfigFiles() []string { return append([]string(nil), o.mcpFiles...) }

// fileServer is an operator server and the file that defines it.
type fileServer struct {
	config mcpclient.ServerConfig
	path   string
}

// loadMCPConfigs decodes every --mcp-config file into one map of servers.
func loadMCPConfigs(paths []string, lookup func(string) (string, bool)) (map[string]fileServer, []string, []string, error) {
	out := map[string]fileServer{}
	var warns, files []string
	for _, path := range paths {
		data, found, err := readLimited(path)
		if err != nil {
			return nil, nil, nil, err
		}
		if !found {
			return nil, nil, nil, setupErrorf("--mcp-config %s: no such file", path)
		}
		l, w, err := decodeFile(globalLayer, path, data, lookup)
		if err != nil {
			return nil, nil, nil, err
		}
		warns = append(warns, w...)
		if key := otherSetting(l); key != "" {
			return nil, nil, nil, setupErrorf("--mcp-config %s: sets %q; a --mcp-config file holds only mcp_servers (use -c or a config file for other settings)", path, key)
		}
		for name, s := range l.servers() {
			out[name] = fileServer{s, path}
		}
		files = append(files, path)
	}
	return out, warns, files, nil
}

// otherSetting names the first setting of l other than mcp_servers, "" if none.
func otherSetting(l *layer) string {
	var keys []string
	for i, v := range l.vals {
		if v != nil && table[i].Key != "mcp_servers" {
			keys = append(keys, table[i].Key)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}
