package main

import (
	"github.com/odek-run/odek/internal/config"
	"github.com/spf13/cobra"
)

// runFlagValues hold the flags that override config; apply copies the ones
// actually given into Overrides, so an unset flag never masks a config value.
type runFlagValues struct {
	model, baseURL, system                  string
	maxIter, maxToolParallel                int
	stream, noColor                         bool
	maxRuntime, maxToolCalls, maxIn, maxOut int64
	maxCost                                 float64
	tools, noTools                          []string
}

func (f *runFlagValues) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", "", "model id (default from config, else "+config.DefaultModel+")")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible base URL, e.g. http://localhost:11434/v1")
	fl.StringVar(&f.system, "system", "", "system prompt (operator only; a project file cannot set it)")
	fl.IntVar(&f.maxIter, "max-iter", 0, "maximum loop iterations before a partial summary (default 90)")
	fl.IntVar(&f.maxToolParallel, "max-tool-parallel", 0, "tool calls of one response run at once (default 4)")
	fl.BoolVar(&f.stream, "stream", true, "stream responses (--stream=false for endpoints without SSE)")
	fl.BoolVar(&f.noColor, "no-color", false, "no colours on stderr (also NO_COLOR)")
	fl.Int64Var(&f.maxRuntime, "max-runtime", 0, "budget: wall-clock seconds for the whole run (exit 4)")
	fl.Int64Var(&f.maxToolCalls, "max-tool-calls", 0, "budget: tool calls executed (exit 4)")
	fl.Int64Var(&f.maxIn, "max-input-tokens", 0, "budget: input tokens, cumulative (exit 4)")
	fl.Int64Var(&f.maxOut, "max-output-tokens", 0, "budget: output tokens, cumulative (exit 4)")
	fl.Float64Var(&f.maxCost, "max-cost-usd", 0, "budget: dollars, needs prices in the global config (exit 4)")
	fl.StringArrayVar(&f.tools, "tool", nil, "only offer this tool (repeatable)")
	fl.StringArrayVar(&f.noTools, "no-tool", nil, "never offer this tool (repeatable)")
}

func (f *runFlagValues) apply(cmd *cobra.Command, o *config.Overrides) {
	fl := cmd.Flags()
	set := fl.Changed
	if set("model") {
		o.Model = &f.model
	}
	if set("base-url") {
		o.BaseURL = &f.baseURL
	}
	if set("system") {
		o.System = &f.system
	}
	if set("max-iter") {
		o.MaxIterations = &f.maxIter
	}
	if set("max-tool-parallel") {
		o.MaxToolParallel = &f.maxToolParallel
	}
	if set("stream") {
		o.Stream = &f.stream
	}
	if set("no-color") {
		o.NoColor = &f.noColor
	}
	if set("max-runtime") {
		o.MaxRuntimeSeconds = &f.maxRuntime
	}
	if set("max-tool-calls") {
		o.MaxToolCalls = &f.maxToolCalls
	}
	if set("max-input-tokens") {
		o.MaxInputTokens = &f.maxIn
	}
	if set("max-output-tokens") {
		o.MaxOutputTokens = &f.maxOut
	}
	if set("max-cost-usd") {
		o.MaxCostUSD = &f.maxCost
	}
	if set("tool") {
		o.ToolsEnabled = f.tools
	}
	o.ToolsDisabled = f.noTools
}
