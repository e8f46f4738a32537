//go:build !unix

package builtin

import (
	"context"
	"errors"
	"os/exec"
)

func runGroup(context.Context, runSpec) runResult {
	return runResult{err: errors.New("the shell tool needs a unix system")}
}

func signalOf(*exec.ExitError) int { return 0 }
