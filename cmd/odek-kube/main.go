// Command odek-kube is odek's kubernetes sub-agent runner (docs/SCALE.md):
// odek starts it instead of itself for each child when the operator's
// config says subagent.runner "kubernetes", with a child's command line
// (subagent --task FILE …) and the API key on descriptor 3, and it runs
// the child as a Job. It is a program of its own so that odek never links
// client-go.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/odek-run/odek/internal/childkey"
	"github.com/odek-run/odek/internal/kube"
)

// version is set by the build (make build), as odek's is.
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	key, _, keyErr := childkey.Key()
	code := kube.Main(ctx, kube.Options{
		Args: os.Args[1:], LookupEnv: os.LookupEnv, Key: key, KeyErr: keyErr,
		Stdout: os.Stdout, Stderr: os.Stderr, Version: version,
	})
	stop()
	os.Exit(code)
}
