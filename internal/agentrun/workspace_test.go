package agentrun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/syncbuf"
)

func gateCall(cmd string, c risk.Class) loop.GateCall {
	return loop.GateCall{Tool: "shell", Assessed: true, Args: []byte(`{"command":"` + cmd + `"}`),
		Risk: risk.Assessment{Class: c, Set: risk.Of(c), What: cmd, Reason: "r"}}
}

// On a terminal the gate asks on stderr; "trust" covers the class for the
// rest of the run. Without one it never asks and denies, saying why.
func TestGateWiring(t *testing.T) {
	errOut := &syncbuf.Buffer{}
	ios := &iostreams.IOStreams{In: strings.NewReader("t\n"), ErrOut: errOut, StdinTTY: true, StderrTTY: true}
	o := gateOptions{warn: func(m string) { fmt.Fprintf(errOut, "odek: warning: %s\n", m) }}
	g, err := newGate(ios, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 2 {
		if err := g.Check(ctx, gateCall("curl x", risk.NetworkEgress)); err != nil {
			t.Fatalf("trusted class denied: %v", err)
		}
	}
	if n := strings.Count(errOut.String(), "wants to run"); n != 1 {
		t.Fatalf("asked %d times:\n%s", n, errOut.String())
	}

	errOut = &syncbuf.Buffer{}
	ios = &iostreams.IOStreams{In: strings.NewReader(""), ErrOut: errOut}
	if g, err = newGate(ios, o); err != nil {
		t.Fatal(err)
	}
	err = g.Check(ctx, gateCall("curl x", risk.NetworkEgress))
	var de *policy.DeniedError
	if !errors.As(err, &de) || !strings.Contains(errOut.String(), `denied by configuration: shell "curl x" (risk: network_egress): no terminal to ask`) {
		t.Fatalf("err %v, stderr %q", err, errOut.String())
	}
	o.dangerous.NonInteractive = "prompt"
	if _, err := newGate(ios, o); err == nil {
		t.Fatal("a bad dangerous setting built a gate")
	}
}

func TestShellEnvDropsSecrets(t *testing.T) {
	env := shellEnv([]string{"PATH=/bin", "OPENAI_API_KEY=sk-1", "ODEK_API_KEY=sk-2", "ALIAS=sk-3", "HOME=/h",
		"GITHUB_TOKEN=ghp", "aws_secret_access_key=x", "DATABASE_URL=pg://", "PLAIN=", "LC_ALL=C", "SENTRY_DSN=https://k@s/1",
		"GH_HOST=github.com", "MYAPP_MODE=x", "MYAPP_KEY=sk-3", "HTTPS_PROXY=http://u:p@proxy"},
		&config.Config{APIKey: "sk-3", SecretNames: []string{"DATABASE_URL", "UNSET"}, ShellEnvPassthrough: []string{"GH_HOST", "MYAPP_*", "ALIAS"}})
	if got := strings.Join(env, " "); got != "PATH=/bin HOME=/h LC_ALL=C GH_HOST=github.com MYAPP_MODE=x" {
		t.Fatalf("env = %v", got)
	}
}
