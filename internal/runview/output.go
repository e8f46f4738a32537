// Package runview is what a run shows: the progress line on stderr, the
// warnings above it, the --output modes (the bare answer, the run report,
// the stream-json lines), the run report itself and the listing of odek
// tools. It knows the run only by what it is handed (Facts, loop results,
// events): nothing here assembles or runs anything.
package runview

import (
	"fmt"
	"io"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/untrusted"
)

// The stdout formats of odek run (--output).
const (
	Text       = "text"        // the bare answer
	JSON       = "json"        // one odek.run-report/v1 object
	StreamJSON = "stream-json" // odek.event/v1 lines live, the report as the last line
)

// Modes are the --output values, for the error and completion.
var Modes = []string{Text, JSON, StreamJSON}

// CheckMode refuses an --output value that is not one of Modes (a setup
// error).
func CheckMode(command, mode string) error {
	for _, m := range Modes {
		if mode == m {
			return nil
		}
	}
	return errclass.Wrap(errclass.SetupError, fmt.Errorf("%s: --output must be text, json or stream-json, got %q", command, mode))
}

// ReportsJSON says whether a mode ends with a run report on stdout.
func ReportsJSON(mode string) bool { return mode == JSON || mode == StreamJSON }

// StdoutSink is the stream-json sink: every event as a line on stdout, made
// safe for a terminal when stdout is one.
func StdoutSink(ios *iostreams.IOStreams) *events.JSONLSink {
	var w io.Writer = ios.Out
	if ios.StdoutTTY {
		w = termWriter{ios.Out}
	}
	return events.NewStreamSink(w)
}

// termWriter passes JSON lines through untrusted.Terminal: encoding/json
// leaves DEL, C1 and bidi controls raw, and their \uXXXX forms are valid
// JSON escapes of the same strings.
type termWriter struct{ w io.Writer }

func (t termWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, untrusted.Terminal(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// StdoutText is s as stdout may show it: as it is into a pipe or file, made
// safe for a terminal when stdout is one.
func StdoutText(ios *iostreams.IOStreams, s string) string {
	if ios.StdoutTTY {
		return untrusted.Terminal(s)
	}
	return s
}

// PrintWarnings prints each warning as "odek: warning: …" on stderr, made
// safe for a terminal (warnings carry servers' and files' text).
func PrintWarnings(ios *iostreams.IOStreams, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(ios.ErrOut, "odek: warning: %s\n", untrusted.Terminal(w))
	}
}

// DropWarning is the one warning a run gives when events are lost.
func DropWarning(n int64) string {
	return fmt.Sprintf("events: %d event(s) dropped so far: the event sinks cannot keep up (the final events are still delivered); the run report counts every one as events_dropped", n)
}

// responseFormatWarning is printed once when an endpoint rejects
// response_format.
const responseFormatWarning = "the endpoint rejected response_format (HTTP 400); " +
	"continuing without it for the rest of the run (the output schema is still enforced)"

// FallbackWarning words a field the endpoint refused (llm.Fallback);
// response_format's warning adds that the output schema still holds.
func FallbackWarning(f llm.Fallback) string {
	if f.Field == llm.FieldResponseFormat {
		return responseFormatWarning
	}
	return f.Warning()
}

// ModelFallbackWarning says that the run moved from one model to the next
// of llm.fallback_models, and why (the error's text, already redacted).
func ModelFallbackWarning(from, to, why string) string {
	return fmt.Sprintf("model %s failed (%s): the run goes on with %s (llm.fallback_models)", from, untrusted.TerminalLine(why), to)
}
