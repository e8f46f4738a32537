package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/spf13/cobra"
)

// completionOptions are `odek completion`'s: the shell, and the root
// command whose script it prints.
type completionOptions struct {
	io    *iostreams.IOStreams
	shell string
	root  *cobra.Command
}

// newCmdCompletion is `odek completion`: RunE fills completionOptions and
// hands them to runF (runCompletion when nil).
func newCmdCompletion(ios *iostreams.IOStreams, runF func(context.Context, *completionOptions) error) *cobra.Command {
	o := &completionOptions{io: ios}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script",
		Long: `Print the completion script of a shell on stdout; install it once and
commands, flags and flag values complete: --output modes, --tool/--no-tool
names, --model ids.

bash: needs the bash-completion package (apt install bash-completion, brew
  install bash-completion@2) loaded by your ~/.bashrc. Install for yourself:
    mkdir -p ~/.local/share/bash-completion/completions
    odek completion bash > ~/.local/share/bash-completion/completions/odek
  or for everyone: odek completion bash | sudo tee /etc/bash_completion.d/odek
  Or load it in the current shell only: source <(odek completion bash)
zsh: needs "autoload -U compinit; compinit" in ~/.zshrc (oh-my-zsh and most
  setups have it). Install into a directory of $fpath:
    odek completion zsh > "${fpath[1]}/_odek"
  then start a new shell (rm -f ~/.zcompdump if it does not pick it up).
fish: nothing to install beyond the script:
    odek completion fish > ~/.config/fish/completions/odek.fish

Tool names come from the built-in tools and from what each configured MCP
server listed when odek last started it (a run or odek tools; cached in
$ODEK_HOME/cache/tool-names.json): completing never starts a server. A
server that never started yet completes as "<server>__".`,
		Example: `  source <(odek completion bash)
  odek completion bash > ~/.local/share/bash-completion/completions/odek
  odek completion zsh > "${fpath[1]}/_odek"
  odek completion fish > ~/.config/fish/completions/odek.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.shell, o.root = args[0], cmd.Root()
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runCompletion(cmd.Context(), o)
		},
	}
}

// runCompletion prints the shell's completion script.
func runCompletion(_ context.Context, o *completionOptions) error {
	switch o.shell {
	case "bash":
		return o.root.GenBashCompletionV2(o.io.Out, true)
	case "zsh":
		return o.root.GenZshCompletion(o.io.Out)
	case "fish":
		return o.root.GenFishCompletion(o.io.Out, true)
	}
	return fmt.Errorf("unsupported shell %q", o.shell)
}

// registerValueCompletions makes the values of run's flags complete.
func registerValueCompletions(cmd *cobra.Command, ios *iostreams.IOStreams) {
	fixed := func(vals ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = cmd.RegisterFlagCompletionFunc("output", fixed(runview.Modes...))
	tools := func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return completeToolNames(ios, cmd)
	}
	for _, name := range []string{"tool", "no-tool"} {
		_ = cmd.RegisterFlagCompletionFunc(name, tools)
	}
	_ = cmd.RegisterFlagCompletionFunc("model", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return completeModels(ios, cmd)
	})
	for _, s := range config.Settings() {
		if s.Flag != "" && s.Supported && len(s.Enum) > 0 {
			_ = cmd.RegisterFlagCompletionFunc(s.Flag, fixed(s.Enum...))
		}
	}
}

// completionConfig loads the config as the command would, quietly (a
// warning printed while the shell completes would garble the prompt), from
// the directory -C names.
func completionConfig(ios *iostreams.IOStreams, cmd *cobra.Command) (*config.Config, bool) {
	home, err := agentrun.Home(ios)
	if err != nil {
		return nil, false
	}
	dir := ""
	if f := cmd.Flags().Lookup("cwd"); f != nil {
		dir = f.Value.String()
	}
	if dir == "" {
		if dir, err = ios.Getwd(); err != nil {
			return nil, false
		}
	}
	cfg, _, err := config.Load(config.LoadOptions{Home: home, Dir: dir, LookupEnv: ios.LookupEnv})
	return cfg, err == nil
}

// completeToolNames offers the built-in tools and, per configured server,
// the tools it listed when it last started, or "<server>__" when it never
// has: no server is started to complete a flag.
func completeToolNames(ios *iostreams.IOStreams, cmd *cobra.Command) ([]cobra.Completion, cobra.ShellCompDirective) {
	cfg, ok := completionConfig(ios, cmd)
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names := agentrun.BuiltinToolNames()
	cache := agentrun.ReadToolCache(cfg.Home)
	nospace := false
	for _, sv := range cfg.MCPServers {
		if sv.Config.Enabled != nil && !*sv.Config.Enabled || !agentrun.Completable(sv.Name) {
			continue
		}
		tools := cache.Servers[sv.Name]
		if len(tools) == 0 { // never started, or no tools listed
			names = append(names, sv.Name+"__")
			nospace = true
			continue
		}
		for _, t := range tools {
			if agentrun.Completable(t) {
				names = append(names, sv.Name+"__"+t)
			}
		}
	}
	slices.Sort(names)
	dir := cobra.ShellCompDirectiveNoFileComp
	if nospace {
		dir |= cobra.ShellCompDirectiveNoSpace
	}
	return slices.Compact(names), dir
}

// completeModels offers the configured model and every model id the config
// has prices or a context window for.
func completeModels(ios *iostreams.IOStreams, cmd *cobra.Command) ([]cobra.Completion, cobra.ShellCompDirective) {
	cfg, ok := completionConfig(ios, cmd)
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	models := []string{cfg.Model}
	for m := range cfg.ModelPrices {
		models = append(models, m)
	}
	for m := range cfg.ModelContextWindows {
		models = append(models, m)
	}
	models = slices.DeleteFunc(models, func(m string) bool { return m == "" || strings.ContainsAny(m, " \t\n\r") })
	slices.Sort(models)
	return slices.Compact(models), cobra.ShellCompDirectiveNoFileComp
}
