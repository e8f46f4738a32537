package main

import (
	"context"
	"errors"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/loop"
)

type mcpSet struct{}

func (*mcpSet) Close() error { return nil }

// startMCP is a placeholder until multi-server startup lands.
func startMCP(ctx context.Context, ios *IOStreams, cfg *config.Config, store *artifact.Store, builtins []string) (*mcpSet, []loop.Tool, error) {
	if len(cfg.MCPServers) == 0 {
		return nil, nil, nil
	}
	return nil, nil, asSetup(errors.New("mcp servers are not supported yet"))
}
