package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/session"
	"github.com/odek-run/odek/internal/untrusted"
	"github.com/spf13/cobra"
)

// listCap is how many sessions `session list` shows (docs/SESSIONS.md).
const listCap = 20

// newCmdSession is `odek session`, which only groups its subcommands.
func newCmdSession(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session <list|show|delete|trim|cleanup>",
		Short: "List, show, trim and delete saved sessions",
		Long: `Manage the sessions odek run --session saves in $ODEK_HOME/sessions
(~/.odek/sessions): one 0600 JSON file per session, secrets redacted.

Session ids look like 20260807-0123456789abcdef0123456789abcdef; anything
else is refused before it comes near a path (exit 3).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	list := newCmdSessionSub(ios, &cobra.Command{
		Use: "list [--json]", Short: "The 20 most recently updated sessions", Args: cobra.NoArgs,
	}, "print a JSON array of {id, title, created_at, updated_at, turns, dir}", sessionList, nil)
	show := newCmdSessionSub(ios, &cobra.Command{
		Use: "show [id] [--json]", Short: "One session: its fields, external refs and messages (default: the newest)",
		Args: cobra.MaximumNArgs(1),
	}, "print the session as JSON (without its auth token)", sessionShow, nil)
	del := newCmdSessionSub(ios, &cobra.Command{
		Use: "delete <id>", Short: "Delete a session and its sub-agent artifacts", Args: cobra.ExactArgs(1),
	}, "", sessionDelete, nil)
	trim := newCmdSessionSub(ios, &cobra.Command{
		Use:   "trim <id> <n>",
		Short: "Keep the task, the plan and the newest n messages (whole tool-call groups)",
		Args:  cobra.ExactArgs(2),
	}, "", sessionTrim, nil)
	cleanup := newCmdSessionSub(ios, &cobra.Command{
		Use: "cleanup <days>", Short: "Delete the sessions not updated for that many days", Args: cobra.ExactArgs(1),
	}, "", sessionCleanup, nil)
	cmd.AddCommand(list, show, del, trim, cleanup)
	for _, c := range cmd.Commands() {
		usageArgs(c)
	}
	return cmd
}

// sessionOptions are what a session subcommand is asked: its arguments
// (ids, counts) and --json where it has one.
type sessionOptions struct {
	io   *iostreams.IOStreams
	args []string
	json bool
}

// newCmdSessionSub makes c a session subcommand: RunE fills
// sessionOptions (with a --json flag when jsonUsage is set) and hands them
// to runF, or run when runF is nil.
func newCmdSessionSub(ios *iostreams.IOStreams, c *cobra.Command, jsonUsage string,
	run, runF func(context.Context, *sessionOptions) error) *cobra.Command {
	o := &sessionOptions{io: ios}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		o.args = args
		if runF != nil {
			return runF(cmd.Context(), o)
		}
		return run(cmd.Context(), o)
	}
	if jsonUsage != "" {
		c.Flags().BoolVar(&o.json, "json", false, jsonUsage)
	}
	return c
}

// openSessions is the store of the odek home.
func openSessions(ios *iostreams.IOStreams) (*session.Store, string, error) {
	home, err := agentrun.Home(ios)
	if err != nil {
		return nil, "", err
	}
	return agentrun.SessionStore(home, ios), home, nil
}

// loadSession loads the session named by args, the newest when there is
// none; a malformed id (an empty one included) is a usage error.
func loadSession(store *session.Store, args []string) (*session.Session, error) {
	if len(args) == 0 {
		return store.Newest()
	}
	id := args[0]
	if err := session.ValidID(id); err != nil {
		return nil, errclass.Wrap(errclass.SetupError, err)
	}
	return store.Load(id)
}

// sessionList lists the newest sessions.
func sessionList(_ context.Context, o *sessionOptions) error {
	ios, asJSON := o.io, o.json
	store, _, err := openSessions(ios)
	if err != nil {
		return err
	}
	list, warns, err := store.List()
	runview.PrintWarnings(ios, warns)
	if err != nil {
		return err
	}
	if len(list) > listCap {
		list = list[:listCap]
	}
	if asJSON {
		if list == nil {
			list = []session.Summary{}
		}
		return writeIndented(ios, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(ios.ErrOut, "odek: no sessions yet; start one with odek run --session")
		return nil
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tTURNS\tDIR\tTITLE")
	home := ios.Env("HOME")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Turns,
			shortDir(s.Dir, home), untrusted.TerminalLine(s.Title))
	}
	return tw.Flush()
}

// shortDir shows a session's directory on one line, the home directory as
// ~, and "-" for a session from before directories were recorded.
func shortDir(dir, home string) string {
	switch {
	case dir == "":
		return "-"
	case home != "" && dir == home:
		return "~"
	case home != "" && strings.HasPrefix(dir, strings.TrimSuffix(home, "/")+"/"):
		dir = "~" + dir[len(strings.TrimSuffix(home, "/")):]
	}
	return untrusted.TerminalLine(dir)
}

func writeIndented(ios *iostreams.IOStreams, v any) error {
	enc := json.NewEncoder(ios.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// sessionShow prints one session.
func sessionShow(_ context.Context, o *sessionOptions) error {
	ios, args, asJSON := o.io, o.args, o.json
	store, _, err := openSessions(ios)
	if err != nil {
		return err
	}
	sess, err := loadSession(store, args)
	if err != nil {
		return err
	}
	if asJSON {
		pub := *sess
		pub.AuthToken = ""
		raw, err := json.Marshal(&pub)
		if err != nil {
			return err
		}
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil {
			return err
		}
		delete(obj, "auth_token")
		return writeIndented(ios, obj)
	}
	w := ios.Out
	fmt.Fprintf(w, "id:        %s\ncreated:   %s\nupdated:   %s\nmodel:     %s\n", sess.ID,
		sess.CreatedAt.Format(time.RFC3339), sess.UpdatedAt.Format(time.RFC3339), sess.Model)
	if sess.Provider != "" {
		fmt.Fprintf(w, "provider:  %s\n", sess.Provider)
	}
	if sess.Dir != "" {
		fmt.Fprintf(w, "dir:       %s\n", untrusted.TerminalLine(sess.Dir))
	}
	fmt.Fprintf(w, "turns:     %d\nmessages:  %d\ntask:      %s\n", sess.Turns, len(sess.Messages), session.Title(sess.Task))
	if len(sess.ExternalRefs) > 0 {
		fmt.Fprintln(w, "external refs (stored, never fetched):")
		for _, r := range sess.ExternalRefs {
			ro := ""
			if r.ReadOnly != nil && *r.ReadOnly {
				ro = ", read-only"
			}
			fmt.Fprintf(w, "  %s %s (by %s%s, %s)\n", r.Kind, untrusted.OneLine(r.URI, 0), untrusted.OneLine(r.CreatedBy, 0), ro, r.CreatedAt.Format(time.RFC3339))
		}
	}
	fmt.Fprintln(w, "conversation:")
	for i, m := range sess.Messages {
		line := untrusted.OneLine(m.Content, 100)
		for _, c := range m.ToolCalls {
			line += " → " + untrusted.OneLine(c.Function.Name, 64)
		}
		fmt.Fprintf(w, "  %3d %-9s %s\n", i+1, m.Role, strings.TrimSpace(line))
	}
	return nil
}

// sessionDelete deletes a session and its sub-agents' artifacts.
func sessionDelete(_ context.Context, o *sessionOptions) error {
	ios, id := o.io, o.args[0]
	store, home, err := openSessions(ios)
	if err != nil {
		return err
	}
	if err := session.ValidID(id); err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	if err := store.Delete(id); err != nil {
		return err
	}
	removeSessionArtifacts(home, id)
	fmt.Fprintf(ios.Out, "deleted session %s\n", id)
	return nil
}

// removeSessionArtifacts removes the sub-agent artifacts filed under a
// session (docs/SUBAGENTS.md); id is valid, so the path stays under artifacts/.
func removeSessionArtifacts(home, id string) {
	_ = os.RemoveAll(filepath.Join(home, "artifacts", id))
}

// sessionTrim keeps the newest messages of a session.
func sessionTrim(_ context.Context, o *sessionOptions) error {
	ios, id, nArg := o.io, o.args[0], o.args[1]
	n, err := strconv.Atoi(nArg)
	if err != nil || n < 0 {
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("session trim: <n> is the number of newest messages to keep, a whole number ≥ 0; got %q", nArg))
	}
	store, _, err := openSessions(ios)
	if err != nil {
		return err
	}
	if err := session.ValidID(id); err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	sess, err := store.Load(id)
	if err != nil {
		return err
	}
	removed := sess.Trim(n)
	if removed == 0 {
		fmt.Fprintf(ios.Out, "session %s: nothing to trim (%d messages)\n", id, len(sess.Messages))
		return nil
	}
	warns, err := store.Save(sess)
	runview.PrintWarnings(ios, warns)
	if err != nil {
		return err
	}
	fmt.Fprintf(ios.Out, "session %s: removed %d message(s), %d left\n", id, removed, len(sess.Messages))
	return nil
}

// sessionCleanup deletes the sessions not updated for a while.
func sessionCleanup(_ context.Context, o *sessionOptions) error {
	ios, daysArg := o.io, o.args[0]
	days, err := strconv.Atoi(daysArg)
	if err != nil || days < 1 {
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("session cleanup: <days> is a whole number of days ≥ 1; got %q", daysArg))
	}
	store, home, err := openSessions(ios)
	if err != nil {
		return err
	}
	removed, err := store.Cleanup(time.Duration(days) * 24 * time.Hour)
	for _, id := range removed {
		removeSessionArtifacts(home, id)
		fmt.Fprintf(ios.Out, "deleted session %s\n", id)
	}
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		fmt.Fprintf(ios.Out, "no session is older than %d day(s)\n", days)
	}
	return nil
}
