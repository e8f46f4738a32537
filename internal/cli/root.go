package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
)

// newCmdRoot is the odek command with its subcommands over ios.
func newCmdRoot(ios *iostreams.IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "odek",
		Short: "Run an LLM agent over workspace and MCP tools, with hard budgets and a versioned event stream",
		Long: `odek drives an LLM think-act loop over its built-in workspace tools and tools
served by MCP servers.

It is built for places where nobody watches: the final answer alone goes to
stdout, progress to stderr, and the exit code says how the run ended:
  0 success · 1 task/model/tool error · 2 timeout (stalled run, subagent deadline) · 3 setup error · 4 budget exhausted · 130 interrupted`,
		Example: `  odek run "Summarise the open TODOs in this repository"
  odek run --max-runtime 300 --max-cost-usd 0.50 --events-jsonl events.jsonl "Fix the failing test"
  odek tools --json
  odek init`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version is handled here rather than by cobra's Version field:
		// printing cobra's version needs a template (SetVersionTemplate),
		// and a text/template in the binary keeps every exported method of
		// every type alive (it looks methods up by name), 1.9 MB of binary
		// and 1.5 MiB of RSS in every process. As cobra did: --version wins
		// over arguments and -C, --help over --version.
		Args: func(cmd *cobra.Command, args []string) error {
			if versionAsked(cmd) {
				return nil
			}
			return noSubcommand(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if versionAsked(cmd) {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), versionText())
				return err
			}
			return cmd.Help()
		},
	}
	if ios.Args != nil {
		root.SetArgs(ios.Args)
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out) // --help and --version were asked for: they are the output
	root.SetErr(ios.ErrOut)
	root.Flags().BoolP("version", "v", false, "print the version and exit")
	var dir string
	root.PersistentFlags().StringVarP(&dir, "cwd", "C", "",
		"run as if odek was started in `DIR`: the project config, the tools' working directory and relative paths in other flags")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if versionAsked(cmd) {
			return nil
		}
		if err := changeDir(ios, dir); err != nil {
			earlyReport(cmd, ios, err)
			return err
		}
		return nil
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if name := strayCommand(cmd, ios.Args); name != "" {
			err = unknownCommand(cmd, name) // odek runn --max-iter 3: the typo, not the flag
		} else {
			if hint := flagHint(cmd, err); hint != "" {
				err = fmt.Errorf("%w; %s", err, hint)
			}
			err = errclass.Wrap(errclass.SetupError, fmt.Errorf("%w\nRun '%s --help' for usage", err, cmd.CommandPath()))
		}
		earlyReport(cmd, ios, err)
		return err
	})
	root.AddCommand(commandsFor(ios)...)
	for _, c := range root.Commands() {
		if c.HasSubCommands() {
			c.Args = noSubcommand // odek session lst: exit 3, did you mean "list"
		}
		usageArgs(c)
	}
	root.SetHelpCommand(newCmdHelp())
	return root
}

// subcommands are odek's commands, in the order help lists them.
var subcommands = []struct {
	name  string
	build func(*iostreams.IOStreams) *cobra.Command
}{
	{"run", func(ios *iostreams.IOStreams) *cobra.Command { return newCmdRun(ios, nil) }},
	{"init", func(ios *iostreams.IOStreams) *cobra.Command { return newCmdInit(ios, nil) }},
	{"version", func(ios *iostreams.IOStreams) *cobra.Command { return newCmdVersion(ios, nil) }},
	{"completion", func(ios *iostreams.IOStreams) *cobra.Command { return newCmdCompletion(ios, nil) }},
	{"tools", func(ios *iostreams.IOStreams) *cobra.Command { return newCmdTools(ios, nil) }},
	{"approvals", newCmdApprovals},
	{"continue", func(ios *iostreams.IOStreams) *cobra.Command { return newCmdContinue(ios, nil) }},
	{"session", newCmdSession},
	{"artifacts", newCmdArtifacts},
	{"subagent", func(ios *iostreams.IOStreams) *cobra.Command { return newCmdSubagent(ios, nil) }},
	{"acp", func(ios *iostreams.IOStreams) *cobra.Command { return newCmdACP(ios, nil) }},
}

// commandsFor builds the commands a command line needs: the one it names
// first, or all of them. Building all costs every process 0.1 ms for
// commands it never runs (a run, each sub-agent); a line that begins with
// anything else (a flag, help, a typo, completion) gets all, for help's
// listing and the did-you-mean suggestions.
func commandsFor(ios *iostreams.IOStreams) []*cobra.Command {
	args := ios.Args
	if args == nil {
		args = os.Args[1:]
	}
	if len(args) > 0 {
		for _, c := range subcommands {
			if c.name == args[0] {
				return []*cobra.Command{c.build(ios)}
			}
		}
	}
	cmds := make([]*cobra.Command, len(subcommands))
	for i, c := range subcommands {
		cmds[i] = c.build(ios)
	}
	return cmds
}

// changeDir is -C: a missing or unusable DIR is a setup error.
func changeDir(ios *iostreams.IOStreams, dir string) error {
	if dir == "" {
		return nil
	}
	if ios.Chdir == nil {
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("-C is not available here"))
	}
	if err := ios.Chdir(dir); err != nil {
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("-C %s: %w", dir, errors.Unwrap(err)))
	}
	return nil
}

// usageArgs makes a command's argument errors setup errors (exit 3, like bad
// flags: DECISION 5).
func usageArgs(c *cobra.Command) {
	if c.Args == nil {
		return
	}
	check := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		return errclass.Wrap(errclass.SetupError, check(cmd, args))
	}
}

// versionAsked reports whether cmd is the root command run with --version.
func versionAsked(cmd *cobra.Command) bool {
	if cmd.HasParent() {
		return false
	}
	v, _ := cmd.Flags().GetBool("version")
	return v
}
