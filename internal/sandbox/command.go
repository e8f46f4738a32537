package sandbox

import (
	"os"
)

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

// IsLauncher reports whether args (os.Args) start a launcher, which Main
// runs.
func IsLauncher(args []string) bool {
	return len(args) > 1 && args[1] == LauncherArg
}

// Launch is how to start a target under a policy: the launcher's argv,
// and the descriptors it expects as fds 4, 5, … (fd 3 is its status pipe).
type Launch struct {
	Argv  []string
	Files []*os.File
}

// RulesetFD is the launcher's descriptor of the
// policy's Landlock ruleset; firstRootFD the launcher's first writable root.
const (
	RulesetFD   = 4
	firstRootFD = 5
)

// Command is the launch that runs target with args under p through the
// launcher binary self (odek's own executable). A Landlock policy must
// have been prepared: the launch carries its held ruleset, never paths to
// open again.
func Command(self string, p Policy, target string, args ...string) (Launch, error) {
	if err := p.Validate(); err != nil {
		return Launch{}, err
	}
	files, info, err := p.launchFiles()
	if err != nil {
		return Launch{}, err
	}
	p.Launch = info
	return Launch{Argv: append([]string{self, LauncherArg, p.encodeLaunch(), "--", target}, args...), Files: files}, nil
}
