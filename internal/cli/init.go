package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
)

// initOptions are what `odek init` writes, and where.
type initOptions struct {
	io                   *iostreams.IOStreams
	global, local, force bool
}

// newCmdInit is `odek init`: RunE fills initOptions and hands them to runF
// (runInit when nil).
func newCmdInit(ios *iostreams.IOStreams, runF func(context.Context, *initOptions) error) *cobra.Command {
	o := &initOptions{io: ios}
	cmd := &cobra.Command{
		Use:   "init [--local | --global] [--force]",
		Short: "Write a commented config template (./odek.json, or ~/.odek/config.json with --global)",
		Long: `Write a commented config template, generated from the settings table.

Without --global (or with --local, its explicit spelling) it writes
./odek.json (mode 0644), the project file, which a cloned repository may
carry: it holds no secrets, cannot set endpoints, keys or the system prompt,
may only lower limits, and shows a commented example MCP server. Writing it
raises no trust: the template holds only settings a project file may set,
and the file is read as untrusted whoever wrote it. With --global it writes
$ODEK_HOME/config.json (default ~/.odek/config.json, mode 0600), the
operator's trusted file. An existing file is never overwritten unless
--force is given. Every setting is described in docs/CONFIG.md.`,
		Example: "  odek init\n  odek init --local\n  odek init --global\n  odek init --force",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runInit(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.global, "global", "g", false, "write the global config ($ODEK_HOME/config.json)")
	cmd.Flags().BoolVarP(&o.local, "local", "l", false, "write the project file ./odek.json (the default)")
	cmd.Flags().BoolVarP(&o.force, "force", "f", false, "overwrite an existing file")
	return cmd
}

// runInit writes the template.
func runInit(_ context.Context, o *initOptions) error {
	ios := o.io
	if o.global && o.local {
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("init: --local writes the project file and --global the operator's: give one"))
	}
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
