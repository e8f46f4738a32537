package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/flaghint"
	"github.com/odek-run/odek/internal/suggest"
	"github.com/spf13/cobra"
)

// newCmdHelp is `odek help [command]`: the command's --help, and for a
// command that does not exist the same usage error (exit 3) as running it.
func newCmdHelp() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Show the help of a command",
		Long:  "Show the help of odek or of one of its commands: odek help run is odek run --help.",
		Example: `  odek help
  odek help run`,
		ValidArgsFunction: completeCommandNames,
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil {
				return errclass.Wrap(errclass.SetupError, err)
			}
			if len(rest) > 0 {
				return unknownCommand(cmd, rest[0])
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// completeCommandNames completes `odek help <command>` with the commands a
// user may run: hidden ones never appear.
func completeCommandNames(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	cmd, _, err := c.Root().Find(args)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
			out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// noSubcommand is the Args of a command that only groups subcommands: an
// argument there is a command that does not exist.
func noSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommand(cmd, args[0])
}

// unknownCommand is the usage error (exit 3) for a command name that does
// not exist under cmd, suggesting the closest ones.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if h, ok := flaghint.Command(name); ok && !cmd.HasParent() {
		msg += "; " + h.Message()
	} else if s := suggest.ByDistance(name, cmd.SuggestionsFor(name)); len(s) > 0 {
		msg += "; did you mean " + quoteList(s) + "?"
	}
	return errclass.Wrap(errclass.SetupError, fmt.Errorf("%s\nRun '%s --help' for usage", msg, cmd.CommandPath()))
}

// quoteList is "a", "b" or "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// strayCommand is the command name a flag error on a command that only
// groups subcommands hides: in odek runn --max-iter 3, the flag is unknown
// only because runn is not run. It returns the first argument after cmd's
// path that is not a flag or a flag's value, when no subcommand has that
// name; "" otherwise. args are the command line's arguments (nil: os.Args).
func strayCommand(cmd *cobra.Command, args []string) string {
	if !cmd.HasSubCommands() {
		return ""
	}
	if args == nil {
		args = os.Args[1:]
	}
	found, rest, err := cmd.Root().Find(args)
	if err != nil || found != cmd {
		return ""
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if isSubcommand(cmd, a) {
				return "" // odek --bogus run: the flag is the mistake
			}
			return a
		}
		if takesValue(cmd, a) {
			i++ // -C dir: dir is the flag's value
		}
	}
	return ""
}

// takesValue reports whether flag argument a (-C, --cwd, not --cwd=dir)
// names a flag of cmd that takes the next argument as its value.
func takesValue(cmd *cobra.Command, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	if name, long := strings.CutPrefix(a, "--"); long {
		f := cmd.Flags().Lookup(name)
		return f != nil && f.NoOptDefVal == ""
	}
	if len(a) != 2 {
		return false // -abc: shorthands together, or a value attached
	}
	f := cmd.Flags().ShorthandLookup(a[1:])
	return f != nil && f.NoOptDefVal == ""
}

// isSubcommand reports whether name names one of cmd's subcommands.
func isSubcommand(cmd *cobra.Command, name string) bool {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return true
		}
	}
	return false
}
