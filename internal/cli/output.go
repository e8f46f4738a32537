package cli

import (
	"context"
	"strings"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/spf13/cobra"
)

// earlyReport prints the report of a run that failed before its options were
// complete (a flag error, a bad argument, -C) when --output asks for one.
// The output flag itself may not be parsed yet (pflag stops at the first bad
// flag), so the arguments are read as well.
func earlyReport(cmd *cobra.Command, ios *iostreams.IOStreams, err error) {
	f := cmd.Flags().Lookup("output")
	if f == nil {
		return
	}
	mode := f.Value.String()
	if !f.Changed {
		if v, ok := outputArg(ios.Args); ok {
			mode = v
		}
	}
	if runview.ReportsJSON(mode) {
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		runview.WriteSetupReport(ctx, ios, nil, err)
	}
}

// outputArg is the last --output value on a command line, before "--".
func outputArg(args []string) (string, bool) {
	val, found := "", false
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--output="); ok {
			val, found = v, true
		} else if a == "--output" && i+1 < len(args) {
			val, found = args[i+1], true
		}
	}
	return val, found
}
