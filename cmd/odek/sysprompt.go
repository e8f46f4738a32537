package main

import (
	"fmt"
	"runtime"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/prompt"
)

// systemPrompt is the run's system prompt: odek's own (or --system's),
// then --append-system's text. It is built once, at setup, from the
// tools the run offers, so every request of the run starts with the same
// bytes.
func (s *runState) systemPrompt() string {
	def := prompt.Default(s.promptOptions(s.cfg.MaxIterations, s.cfg.Limits))
	return prompt.Compose(def, s.cfg.System, s.cfg.AppendSystem)
}

// promptOptions are the facts the prompt states: the working directory
// (symlinks resolved), the OS, the run's start date, the offered tools and
// the limits set.
func (s *runState) promptOptions(maxIter int, l budget.Limits) prompt.Options {
	dir := s.workDir
	if dir == "" && s.cfg != nil {
		dir = s.cfg.Dir
	}
	return prompt.Options{
		Dir: dir, OS: runtime.GOOS + "/" + runtime.GOARCH, Date: s.start.Format("2006-01-02"),
		Tools: toolNames(s.tools),
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

// printSystem is run --print-system: the system prompt the run would send
// first, output-schema instruction included, on stdout.
func printSystem(ios *IOStreams, s *runState) error {
	_, err := fmt.Fprintln(ios.Out, s.schema.system(s.systemPrompt()))
	return err
}
