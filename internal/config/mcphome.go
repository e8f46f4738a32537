package config

import (
	"path/filepath"
	"strings"
)

// expandServerHomes turns an MCP server's command "~" or "~/…" into a
// path under HOME, as the sandbox's paths are expanded: started without a
// shell, the command would otherwise be looked for in a directory named
// "~". "~user/…" is left as written. A "~" with HOME unset (or relative)
// is a setup error that names the server.
func (c *Config) expandServerHomes() error {
	for i := range c.MCPServers {
		s := &c.MCPServers[i]
		cmd := s.Config.Command
		if cmd != "~" && !strings.HasPrefix(cmd, "~/") {
			continue
		}
		home, _ := c.LookupEnv("HOME")
		if !filepath.IsAbs(home) {
			return setupErrorf("mcp_servers.%s.command %q: HOME is not set to an absolute path, so \"~\" cannot be expanded", s.Name, cmd)
		}
		s.Config.Command = filepath.Join(home, cmd[1:])
	}
	return nil
}
