package cli

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
)

// newCmdArtifacts is `odek artifacts`, which only groups cleanup.
func newCmdArtifacts(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "artifacts <cleanup>",
		Short: "Clean up the artifacts runs saved",
		Long: `Manage the run artifacts in $ODEK_HOME/artifacts (~/.odek/artifacts): one 0700
folder per run (its run id) or session, holding the results cut for the model
and kept whole for artifact_read, at most maintenance.artifacts_max_run_mib
(256 MiB) a run. A run removes the folders older than
maintenance.artifacts_max_age_hours (24) on its way out; cleanup does it now.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdArtifactsCleanup(ios, nil))
	for _, c := range cmd.Commands() {
		usageArgs(c)
	}
	return cmd
}

// artifactsCleanupOptions are what `odek artifacts cleanup` removes: the
// folders older than hours, when given.
type artifactsCleanupOptions struct {
	io    *iostreams.IOStreams
	hours []string // [hours]; none: maintenance.artifacts_max_age_hours
}

// newCmdArtifactsCleanup is `odek artifacts cleanup`: RunE fills its
// options and hands them to runF (runArtifactsCleanup when nil).
func newCmdArtifactsCleanup(ios *iostreams.IOStreams, runF func(context.Context, *artifactsCleanupOptions) error) *cobra.Command {
	o := &artifactsCleanupOptions{io: ios}
	return &cobra.Command{
		Use:   "cleanup [hours]",
		Short: "Delete the artifact folders not modified for that many hours (default: maintenance.artifacts_max_age_hours; 0: all)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.hours = args
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runArtifactsCleanup(cmd.Context(), o)
		},
	}
}

// runArtifactsCleanup removes the artifact folders older than the hours
// given, or than the config's maintenance.artifacts_max_age_hours, and
// lists them with what they held.
func runArtifactsCleanup(_ context.Context, o *artifactsCleanupOptions) error {
	ios, args := o.io, o.hours
	cfg, err := agentrun.LoadConfig(ios, config.Overrides{})
	if err != nil {
		return err
	}
	hours := cfg.ArtifactsMaxAgeHours
	if len(args) == 1 {
		if hours, err = strconv.Atoi(args[0]); err != nil || hours < 0 {
			return errclass.Wrap(errclass.SetupError, fmt.Errorf("artifacts cleanup: [hours] is a whole number of hours ≥ 0; got %q", args[0]))
		}
	}
	removed := agentrun.SweepArtifacts(cfg.Home, time.Duration(hours)*time.Hour, ios.Now(), "")
	var total int64
	for _, d := range removed {
		total += d.Bytes
		fmt.Fprintf(ios.Out, "deleted artifacts/%s (%s)\n", d.Name, artifact.FormatBytes(d.Bytes))
	}
	if len(removed) == 0 {
		fmt.Fprintf(ios.Out, "no artifact folder is older than %d hour(s)\n", hours)
		return nil
	}
	fmt.Fprintf(ios.Out, "removed %d folder(s), %s\n", len(removed), artifact.FormatBytes(total))
	return nil
}
