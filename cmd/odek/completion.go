package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newCompletionCmd(ios *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script",
		Example: `  odek completion bash > /etc/bash_completion.d/odek
  odek completion zsh > "${fpath[1]}/_odek"
  odek completion fish > ~/.config/fish/completions/odek.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(ios.Out, true)
			case "zsh":
				return root.GenZshCompletion(ios.Out)
			case "fish":
				return root.GenFishCompletion(ios.Out, true)
			}
			return fmt.Errorf("unsupported shell %q", args[0])
		},
	}
}
