package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
)

const hostile = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\u202eX"

// wantVisible is hostile as untrusted.Terminal writes it.
const wantVisible = `\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u202eX`

func assertNoControls(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\x07\u202e\r") {
		t.Errorf("%s writes raw controls: %q", what, out)
	}
}

func TestReportErrorAndWarningsSanitised(t *testing.T) {
	ios, _, _, buf := iostreams.Test()
	reportError(ios, errors.New("llm: http 400: "+hostile))
	runview.PrintWarnings(ios, []string{"server says " + hostile})
	out := buf.String()
	assertNoControls(t, "errors and warnings", out)
	if out != "odek: llm: http 400: "+wantVisible+"\nodek: warning: server says "+wantVisible+"\n" {
		t.Errorf("got %q", out)
	}
}
