package cli

import (
	"errors"
	"fmt"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/session"
	"github.com/spf13/cobra"
)

// registerSessionIDFlag adds --session-id, which run and continue read
// differently: run creates or carries on the session of that id, continue
// --fork names the copy with it.
func registerSessionIDFlag(cmd *cobra.Command, o *runOptions, usage string) {
	cmd.Flags().StringVar(&o.sessionID, "session-id", "", usage)
}

// openSessionID is run --session-id: the session of that id is carried on
// as continue would (its model unless --model says otherwise) when it
// exists, and created under that id otherwise, so a retried CI step
// resumes its conversation. A malformed id, or a session that cannot be
// loaded (tampered, too big), is a setup error.
func (o *runOptions) openSessionID(command string) error {
	id := o.sessionID
	if err := session.ValidID(id); err != nil {
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("%s: --session-id: %w", command, err))
	}
	store, _, err := openSessions(o.io)
	if err != nil {
		return err
	}
	o.run.Session = true
	sess, err := store.Load(id)
	switch {
	case errors.Is(err, session.ErrNotFound):
		o.run.SessionID = id
		return nil
	case err != nil:
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("%s: --session-id %s: %w", command, id, err))
	}
	return o.resume(sess)
}

// resume makes the run carry on sess: its model unless --model says
// otherwise.
func (o *runOptions) resume(sess *session.Session) error {
	o.run.Resume, o.run.Session = sess, true
	if !o.modelGiven && sess.Model != "" {
		if err := o.run.Overrides.Set("model", sess.Model, "the session"); err != nil {
			return errclass.Wrap(errclass.SetupError, err)
		}
	}
	return nil
}

// forkSession is continue --fork: a copy of sess under --session-id (a
// fresh id without it), which the run then carries on; sess is left as it
// was.
func (o *continueOptions) forkSession(sess *session.Session) (*session.Session, error) {
	if o.sessionID != "" {
		if err := session.ValidID(o.sessionID); err != nil {
			return nil, errclass.Wrap(errclass.SetupError, fmt.Errorf("continue: --session-id: %w", err))
		}
	}
	store, _, err := openSessions(o.io)
	if err != nil {
		return nil, err
	}
	f, warns, err := store.Fork(sess.ID, o.sessionID)
	runview.PrintWarnings(o.io, warns)
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, fmt.Errorf("continue --fork: %w", err))
	}
	if !o.run.Quiet {
		fmt.Fprintf(o.io.ErrOut, "odek: session %s forked from %s\n", f.ID, sess.ID)
	}
	return f, nil
}
