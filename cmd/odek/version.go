package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
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

func newVersionCmd(ios *iostreams.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version block",
		Example: "  odek version\n  odek --version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(ios.Out, versionText())
			return err
		},
	}
}
