package cli

import (
	"strings"

	"github.com/odek-run/odek/internal/flaghint"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// unknownFlagArg is the argument the flag parser refused as unknown, as
// typed ("--output-format=json", "-p"), read from its error; "" for any
// other flag error (a bad value, a missing one).
func unknownFlagArg(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "unknown flag: "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(msg, "unknown shorthand flag: "); ok {
		if i := strings.LastIndex(rest, " in "); i >= 0 {
			return rest[i+4:]
		}
	}
	return ""
}

// flagHint is what to add to cmd's flag error: another agent runner's
// spelling answered with odek's, or the nearest of cmd's own flags; "" when
// there is neither, or the error is not about an unknown flag.
func flagHint(cmd *cobra.Command, err error) string {
	arg := unknownFlagArg(err)
	if arg == "" {
		return ""
	}
	return flaghint.Suggest(arg, flagNames(cmd))
}

// flagNames are the long names of the flags cmd takes, its inherited ones
// included, hidden ones left out.
func flagNames(cmd *cobra.Command) []string {
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return names
}
