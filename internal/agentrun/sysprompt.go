package agentrun

import (
	"runtime"

	"github.com/odek-run/odek/internal/agentsmd"
	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/prompt"
)

// systemPrompt is the run's system prompt: odek's own (or --system's),
// then the project instructions (AGENTS.md), then --append-system's text. It is built once, at setup, from the
// tools the run offers, so every request of the run starts with the same
// bytes.
func (r *Run) systemPrompt() string {
	cfg := r.conf.cfg
	def := prompt.Default(r.promptOptions(cfg.MaxIterations, cfg.Limits))
	return prompt.ComposeProject(def, cfg.System, agentsmd.Render(r.agents), cfg.AppendSystem)
}

// promptOptions are the facts the prompt states: the working directory
// (symlinks resolved), the OS, the run's start date, the offered tools and
// the limits set.
func (r *Run) promptOptions(maxIter int, l budget.Limits) prompt.Options {
	dir := r.tools.workDir
	if dir == "" && r.conf.cfg != nil {
		dir = r.conf.cfg.Dir
	}
	return prompt.Options{
		Dir: dir, OS: runtime.GOOS + "/" + runtime.GOARCH, Date: r.conf.start.Format("2006-01-02"),
		Tools: toolNames(r.tools.reg),
		Budgets: prompt.Budgets{
			MaxIterations: maxIter, MaxRuntimeSeconds: l.MaxRuntimeSeconds, MaxToolCalls: l.MaxToolCalls,
			MaxInputTokens: l.MaxInputTokens, MaxOutputTokens: l.MaxOutputTokens, MaxCostUSD: l.MaxCostUSD,
		},
	}
}

// toolNames are the names of the tools a registry offers.
func toolNames(r *loop.Registry) []string {
	specs := r.Specs()
	names := make([]string, 0, len(specs))
	for _, sp := range specs {
		names = append(names, sp.Name)
	}
	return names
}
