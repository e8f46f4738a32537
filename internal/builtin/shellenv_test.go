package builtin

import (
	"os"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/redact"
)

func TestShellEnvAllowlist(t *testing.T) {
	environ := []string{
		"PATH=/bin", "HOME=/h", "LC_ALL=C", "LC_CTYPE=UTF-8", "LCX=no", "GOCACHE=/c", "CARGO_HOME=/cargo",
		"SENTRY_DSN=https://k@o1.ingest.sentry.io/1", "NPM_CONFIG__AUTH=dXNlcjpwYXNz", "DOCKER_AUTH_CONFIG={}",
		"CI_JOB_JWT=eyJ.eyJ.x", "SLACK_WEBHOOK=https://hooks.slack.com/services/x", "GOOGLE_API=AIza-key",
		"HTTPS_PROXY=http://u:p@proxy", "GOPROXY=https://u:p@proxy", "SSH_AUTH_SOCK=/run/agent",
		"MYAPP_MODE=dev", "MYAPP_URL=http://x", "GH_HOST=github.com", "=broken", "NOEQUALS", "TERM", "KEYISH=the-api-key",
	}
	got := ShellEnv(environ, EnvOptions{Passthrough: []string{"MYAPP_*", "GH_HOST", "KEYISH", "*", "_*"}, Drop: []string{"the-api-key"}})
	want := "PATH=/bin HOME=/h LC_ALL=C LC_CTYPE=UTF-8 GOCACHE=/c CARGO_HOME=/cargo MYAPP_MODE=dev MYAPP_URL=http://x GH_HOST=github.com"
	if strings.Join(got, " ") != want {
		t.Fatalf("ShellEnv =\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if got := ShellEnv(environ, EnvOptions{}); len(got) != 6 {
		t.Fatalf("no passthrough: %q", got)
	}
}

// A long passthrough list (more names than BaseEnv has) works like a
// short one.
func TestShellEnvManyPassthroughNames(t *testing.T) {
	var names []string
	for i := range len(BaseEnv) + 10 {
		names = append(names, "APP"+strings.Repeat("X", i))
	}
	got := ShellEnv([]string{"APPXX=1", "PATH=/bin", "OTHER=2"}, EnvOptions{Passthrough: names})
	if strings.Join(got, " ") != "APPXX=1 PATH=/bin" {
		t.Fatalf("ShellEnv = %q", got)
	}
}

// Nothing in the base environment looks like it carries a credential.
func TestBaseEnvHoldsNoSecretNames(t *testing.T) {
	for _, n := range BaseEnv {
		if redact.IsSecretName(strings.TrimSuffix(n, "*")) {
			t.Errorf("BaseEnv holds %s, a secret-looking name", n)
		}
		if strings.Contains(n, "PROXY") || strings.HasPrefix(n, "SSH_") {
			t.Errorf("BaseEnv holds %s, whose value may carry a credential", n)
		}
	}
}

// docs/TOOLS.md names every variable of the base environment.
func TestBaseEnvDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/TOOLS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range BaseEnv {
		if !strings.Contains(string(doc), "`"+n+"`") {
			t.Errorf("docs/TOOLS.md does not list %s", n)
		}
	}
}
