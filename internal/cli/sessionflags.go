package cli

import (
	"fmt"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/session"
	"github.com/spf13/cobra"
)

// sessionFlags are the flags run and continue share for sessions and the
// negative forms of two table flags (--planning and --compaction come from
// the settings table); apply turns them into runOptions.
type sessionFlags struct {
	refs                     []string
	noPlanning, noCompaction bool
}

func (f *sessionFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.refs, "external-ref", nil, "store a pointer to outside state with the session, never fetched: kind=..,uri=..,created_by=..[,read_only=..] or kind=uri (repeatable)")
	fl.BoolVar(&f.noPlanning, "no-planning", false, "do not offer the plan tool (wins over --planning)")
	fl.BoolVar(&f.noCompaction, "no-compaction", false, "drop trimmed turns without a summary (wins over --compaction)")
}

// apply parses the refs (a malformed one is a setup error) and records the
// --no-* flags as overrides.
func (f *sessionFlags) apply(command string, o *runOptions) error {
	for _, s := range f.refs {
		r, err := session.ParseExternalRef(s)
		if err != nil {
			return errclass.Wrap(errclass.SetupError, fmt.Errorf("%s: --external-ref: %w", command, err))
		}
		o.run.Refs = append(o.run.Refs, r)
	}
	if f.noPlanning {
		if err := o.run.Overrides.Set("planning.enabled", "false", "--no-planning"); err != nil {
			return errclass.Wrap(errclass.SetupError, err)
		}
	}
	if f.noCompaction {
		if err := o.run.Overrides.Set("compaction", "false", "--no-compaction"); err != nil {
			return errclass.Wrap(errclass.SetupError, err)
		}
	}
	return nil
}

// loadForContinue finds the session `continue` resumes: --id (given, even
// empty), else the newest. A malformed id is a usage error (exit 3).
func loadForContinue(ios *iostreams.IOStreams, id string, given, anyDir bool) (*session.Session, error) {
	store, _, err := openSessions(ios)
	if err != nil {
		return nil, err
	}
	switch {
	case given:
		return loadSession(store, []string{id})
	case anyDir:
		return store.Newest()
	}
	return store.NewestIn(agentrun.SessionDir(ios))
}
