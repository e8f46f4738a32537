package kube

import (
	"fmt"
	"strconv"
)

// childArgs are the flags of the `subagent` command line odek gives the
// helper that the child in the pod gets too.
type childArgs struct {
	TaskFile       string
	TimeoutSeconds int
	Pass           []string // flags for the child, --task, --key-file and --artifact-frame aside
}

// passValue are the flags with a value that go through to the child;
// passBool those without. Anything else names a file or a place on this
// machine (--output-schema, the cassette flags) that the pod does not
// have, and is refused.
var (
	passValue = map[string]bool{"--timeout": true, "--max-iter": true, "--profile": true, "--parent-session": true}
	passBool  = map[string]bool{"--quiet": true, "-q": true, "--stream": true}
)

// parseArgs reads `subagent --task FILE [flags]`.
func parseArgs(args []string) (childArgs, error) {
	var c childArgs
	if len(args) == 0 || args[0] != "subagent" {
		return c, fmt.Errorf("usage: odek-kube subagent --task FILE [flags] (odek starts it as a sub-agent runner)")
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--task" && i+1 < len(args):
			c.TaskFile = args[i+1]
			i++
		case passValue[a] && i+1 < len(args):
			if a == "--timeout" {
				n, err := strconv.Atoi(args[i+1])
				if err != nil || n <= 0 {
					return c, fmt.Errorf("--timeout %q: want whole seconds", args[i+1])
				}
				c.TimeoutSeconds = n
			}
			c.Pass = append(c.Pass, a, args[i+1])
			i++
		case passBool[a]:
			c.Pass = append(c.Pass, a)
		default:
			return c, fmt.Errorf("unknown flag %q: the kubernetes runner passes only --timeout, --max-iter, --profile, --parent-session, --quiet and --stream to a pod", a)
		}
	}
	if c.TaskFile == "" {
		return c, fmt.Errorf("--task is required")
	}
	if c.TimeoutSeconds == 0 {
		c.TimeoutSeconds = 1800
	}
	return c, nil
}
