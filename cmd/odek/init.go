package main

import (
	"fmt"
	"path/filepath"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
)

type initOptions struct {
	global, force bool
}

func newInitCmd(ios *iostreams.IOStreams) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init [--global] [--force]",
		Short: "Write a commented config template (./odek.json, or ~/.odek/config.json with --global)",
		Long: `Write a commented config template, generated from the settings table.

Without --global it writes ./odek.json (mode 0644), the project file, which a
cloned repository may carry: it holds no secrets, cannot set endpoints, keys
or the system prompt, may only lower limits, and shows a commented example MCP
server. With --global it writes $ODEK_HOME/config.json (default
~/.odek/config.json, mode 0600), the operator's trusted file.
An existing file is never overwritten unless --force is given.
Every setting is described in docs/CONFIG.md.`,
		Example: "  odek init\n  odek init --global\n  odek init --force",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInit(ios, o)
		},
	}
	cmd.Flags().BoolVarP(&o.global, "global", "g", false, "write the global config ($ODEK_HOME/config.json)")
	cmd.Flags().BoolVarP(&o.force, "force", "f", false, "overwrite an existing file")
	return cmd
}

func runInit(ios *iostreams.IOStreams, o initOptions) error {
	var path string
	if o.global {
		home, err := agentrun.Home(ios)
		if err != nil {
			return err
		}
		path = filepath.Join(home, "config.json")
	} else {
		wd, err := ios.Getwd()
		if err != nil {
			return errclass.Wrap(errclass.SetupError, err)
		}
		path = filepath.Join(wd, "odek.json")
	}
	if err := config.WriteTemplate(path, o.global, o.force); err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	fmt.Fprintf(ios.ErrOut, "odek: wrote %s\n", path)
	return nil
}
