package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/untrusted"
)

// validServerName is config's rule for a server's name: 1–64 of
// [A-Za-z0-9_-] (the caller also refuses "__", the separator of a tool's
// qualified name). It is written out rather than a regexp: a compiled
// {1,64} is 64 copies of its class, built at package init in every odek
// process (881 allocations, ~1 ms) for a check only `odek acp` makes.
func validServerName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// convertServers turns the client's MCP servers into odek's: stdio and
// Streamable HTTP, each an operator server (as --mcp-config names one).
// An HTTP server's Authorization bearer token becomes the value of a
// token_env variable returned in secrets; other headers, SSE and ACP
// transports are refused (initialize does not advertise them).
func convertServers(in []sdk.McpServer) (out []config.MCPServer, secrets map[string]string, err error) {
	seen := map[string]bool{}
	secrets = map[string]string{}
	for i, s := range in {
		var name string
		var cfg mcpclient.ServerConfig
		switch {
		case s.Stdio != nil:
			name = s.Stdio.Name
			cfg = mcpclient.ServerConfig{Command: s.Stdio.Command, Args: s.Stdio.Args}
			if len(s.Stdio.Env) > 0 {
				cfg.Env = map[string]string{}
				for _, e := range s.Stdio.Env {
					cfg.Env[e.Name] = e.Value
				}
			}
		case s.Http != nil:
			name = s.Http.Name
			cfg = mcpclient.ServerConfig{URL: s.Http.Url}
			if err := httpHeaders(i, name, s.Http.Headers, &cfg, secrets); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("%w: only stdio and http servers are supported", ErrBadServer)
		}
		if !validServerName(name) || strings.Contains(name, "__") {
			return nil, nil, fmt.Errorf("%w: name %q: 1-64 of A-Z a-z 0-9 _ -, without \"__\"", ErrBadServer, untrusted.OneLine(name, 64))
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("%w: %q is named twice", ErrBadServer, name)
		}
		seen[name] = true
		out = append(out, config.MCPServer{Name: name, Config: cfg})
	}
	return out, secrets, nil
}

// httpHeaders takes the one header odek can send to an HTTP server:
// Authorization with a bearer token, held in secrets under a variable
// name for cfg.TokenEnv (by the server's place in the list: names
// differing only in "-" and "_" stay apart).
func httpHeaders(i int, name string, hs []sdk.HttpHeader, cfg *mcpclient.ServerConfig, secrets map[string]string) error {
	for _, h := range hs {
		token, ok := strings.CutPrefix(h.Value, "Bearer ")
		if !strings.EqualFold(h.Name, "Authorization") || !ok || token == "" {
			return fmt.Errorf("%w: server %q: header %q: only \"Authorization: Bearer <token>\" is supported",
				ErrBadServer, untrusted.OneLine(name, 64), untrusted.OneLine(h.Name, 64))
		}
		env := fmt.Sprintf("ODEK_ACP_MCP_TOKEN_%d", i)
		cfg.TokenEnv = env
		secrets[env] = token
	}
	return nil
}
