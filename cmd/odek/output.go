package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
)

// The stdout formats of odek run (--output).
const (
	outputText       = "text"        // the bare answer
	outputJSON       = "json"        // one odek.run-report/v1 object
	outputStreamJSON = "stream-json" // odek.event/v1 lines live, the report as the last line
)

// outputModes are the --output values, for the error and completion.
var outputModes = []string{outputText, outputJSON, outputStreamJSON}

func checkOutputMode(command, mode string) error {
	for _, m := range outputModes {
		if mode == m {
			return nil
		}
	}
	return errclass.Wrap(errclass.SetupError, fmt.Errorf("%s: --output must be text, json or stream-json, got %q", command, mode))
}

// reportsJSON says whether a mode ends with a run report on stdout.
func reportsJSON(mode string) bool { return mode == outputJSON || mode == outputStreamJSON }

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
	if reportsJSON(mode) {
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		writeSetupReport(ctx, ios, nil, err)
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

// stdoutSink is the stream-json sink: every event as a line on stdout, made
// safe for a terminal when stdout is one.
func stdoutSink(ios *iostreams.IOStreams) *events.JSONLSink {
	var w io.Writer = ios.Out
	if ios.StdoutTTY {
		w = termWriter{ios.Out}
	}
	return events.NewStreamSink(w)
}

// termWriter passes JSON lines through termText: encoding/json leaves DEL,
// C1 and bidi controls raw, and their \uXXXX forms are valid JSON escapes of
// the same strings.
type termWriter struct{ w io.Writer }

func (t termWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, termText(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
