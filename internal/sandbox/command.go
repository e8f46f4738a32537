package sandbox

import "fmt"

// LauncherArg is argv[1] of a launcher process. It is not a command of the
// CLI: the binary's main checks for it before anything else.
const LauncherArg = "__odek-sandbox-launcher"

// StatusFD is the launcher's status pipe: it writes "ready" once the target
// runs under the policy (or "error: …" when it could not get there), and
// "done" once every descendant is gone.
const StatusFD = 3

// Status lines of the launcher.
const (
	StatusReady = "ready"
	StatusDone  = "done"
)

// confineArg is argv[1] of the launcher's second stage: the process that
// takes the policy and becomes the target.
const confineArg = "__odek-sandbox-confine"

// IsLauncher reports whether args (os.Args) start a launcher or its
// second stage; Main runs either.
func IsLauncher(args []string) bool {
	return len(args) > 1 && (args[1] == LauncherArg || args[1] == confineArg)
}

// Command is the argv that runs target with args under p through the
// launcher binary self (odek's own executable).
func Command(self string, p Policy, target string, args ...string) ([]string, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	enc, err := p.resolved().Encode()
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	return append([]string{self, LauncherArg, enc, "--", target}, args...), nil
}
