package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags
// "-X github.com/odek-run/odek/internal/cli.version=…" (make build).
var version = "dev"

// versionText is the version block: what a bug report needs, nothing more.
func versionText() string {
	commit := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				commit = s.Value[:12]
			}
		}
	}
	return fmt.Sprintf("odek %s\ncommit: %s\ngo: %s\nplatform: %s/%s", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// versionOptions are `odek version`'s: only where to print.
type versionOptions struct{ io *iostreams.IOStreams }

// newCmdVersion is `odek version`: RunE hands versionOptions to runF
// (runVersion when nil).
func newCmdVersion(ios *iostreams.IOStreams, runF func(context.Context, *versionOptions) error) *cobra.Command {
	o := &versionOptions{io: ios}
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version block",
		Example: "  odek version\n  odek --version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runVersion(cmd.Context(), o)
		},
	}
}

// runVersion prints the version block.
func runVersion(_ context.Context, o *versionOptions) error {
	_, err := fmt.Fprintln(o.io.Out, versionText())
	return err
}
