package cli

import (
	"github.com/odek-run/odek/internal/agentrun"
	"github.com/spf13/cobra"
)

// registerCassetteFlags adds --record, --replay and --replay-mode (run,
// continue, subagent) into c.
func registerCassetteFlags(cmd *cobra.Command, c *agentrun.Cassette) {
	fl := cmd.Flags()
	fl.StringVar(&c.Record, "record", "", "record the run's LLM, MCP and shell exchanges into this cassette directory (docs/TESTING.md)")
	fl.StringVar(&c.Replay, "replay", "", "serve the model, MCP servers and shell from this cassette: no network, no servers, no API key")
	fl.StringVar(&c.Mode, "replay-mode", agentrun.ReplayStrict, "strict (everything from the cassette) or lenient (the model from the cassette, tools for real)")
}

// registerChildCassetteFlags adds the flags a parent passes its
// sub-agents: the cassette flags and the hidden --cassette-stream.
func registerChildCassetteFlags(cmd *cobra.Command, c *agentrun.Cassette) {
	registerCassetteFlags(cmd, c)
	cmd.Flags().StringVar(&c.Stream, "cassette-stream", "", "the sub-agent's stream in its parent's cassette")
	_ = cmd.Flags().MarkHidden("cassette-stream")
}
