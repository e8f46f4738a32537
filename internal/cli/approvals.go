package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/approval"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/suggest"
	"github.com/odek-run/odek/internal/untrusted"
	"github.com/spf13/cobra"
)

// newCmdApprovals is `odek approvals`, which only groups list and revoke.
func newCmdApprovals(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "Show or revoke the stored MCP and hook approvals",
		Long: `Show or revoke the approvals stored in $ODEK_HOME (mcp_approvals.json for
project servers allowed to start, mcp_tool_approvals.json for tools allowed
to register, hook_approvals.json for project hooks allowed to run), with the
command line each grant was given for. A hook row shows its event where a
server row shows the server, and its matcher where a tool row shows the tool.`,
		Example: "  odek approvals list\n  odek approvals revoke fs\n  odek approvals revoke --hooks\n  odek approvals revoke --all",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	list, revoke := newCmdApprovalsList(ios, nil), newCmdApprovalsRevoke(ios, nil)
	cmd.AddCommand(list, revoke)
	usageArgs(list)
	usageArgs(revoke)
	return cmd
}

// approvalsListOptions are what `odek approvals list` prints, and how.
type approvalsListOptions struct {
	io   *iostreams.IOStreams
	json bool
}

// newCmdApprovalsList is `odek approvals list`: RunE fills its options and
// hands them to runF (runApprovalsList when nil).
func newCmdApprovalsList(ios *iostreams.IOStreams, runF func(context.Context, *approvalsListOptions) error) *cobra.Command {
	o := &approvalsListOptions{io: ios}
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the stored approvals and what each covers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runApprovalsList(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the approvals as a JSON array")
	return cmd
}

// approvalsRevokeOptions are what `odek approvals revoke` removes: one
// server's grants, every project hook's, or all of them.
type approvalsRevokeOptions struct {
	io     *iostreams.IOStreams
	server string // "" with --hooks or --all
	hooks  bool   // --hooks
	all    bool
}

// newCmdApprovalsRevoke is `odek approvals revoke`: RunE fills its options
// and hands them to runF (runApprovalsRevoke when nil).
func newCmdApprovalsRevoke(ios *iostreams.IOStreams, runF func(context.Context, *approvalsRevokeOptions) error) *cobra.Command {
	o := &approvalsRevokeOptions{io: ios}
	cmd := &cobra.Command{
		Use:   "revoke <server> | --hooks | --all",
		Short: "Remove every stored approval of a server (or of every project hook, or all of them)",
		Long: `Remove every stored approval of a server, its spawn grant and its tool grants,
so that the next run asks again (or, without a terminal, refuses). --hooks
removes every project hook's grant. --all empties every store, grants stored
by older odek versions included.`,
		Args: func(cmd *cobra.Command, args []string) error {
			given := len(args)
			for _, f := range []bool{o.all, o.hooks} {
				if f {
					given++
				}
			}
			if given != 1 {
				return errors.New("revoke: give one server name, --hooks or --all")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.server = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runApprovalsRevoke(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.all, "all", false, "remove every stored approval")
	cmd.Flags().BoolVar(&o.hooks, "hooks", false, "remove every project hook's approval")
	return cmd
}

// approvalStores opens the stores under the odek home: spawn, tool, hook.
func approvalStores(ios *iostreams.IOStreams) ([3]*approval.Store, [3]string, error) {
	var stores [3]*approval.Store
	home, err := agentrun.Home(ios)
	if err != nil {
		return stores, [3]string{}, err
	}
	paths := [3]string{filepath.Join(home, approval.SpawnFile), filepath.Join(home, approval.ToolFile),
		filepath.Join(home, approval.HookFile)}
	for i, p := range paths {
		if stores[i], err = approval.OpenStore(p); err != nil {
			return stores, paths, err
		}
	}
	return stores, paths, nil
}

type approvalJSON struct {
	File string `json:"file"`
	Key  string `json:"key"`
	// Legacy marks a grant stored before odek recorded what grants cover.
	Legacy bool `json:"legacy,omitempty"`
	*approval.Record
}

// runApprovalsList lists both stores' grants.
func runApprovalsList(_ context.Context, o *approvalsListOptions) error {
	ios, asJSON := o.io, o.json
	stores, paths, err := approvalStores(ios)
	if err != nil {
		return err
	}
	var rows []approvalJSON
	for i, s := range stores {
		for _, e := range s.Entries() {
			rows = append(rows, approvalJSON{File: paths[i], Key: e.Key, Legacy: e.Record == nil, Record: e.Record})
		}
	}
	if asJSON {
		if rows == nil {
			rows = []approvalJSON{}
		}
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(ios.Out, "%s\n", runview.StdoutText(ios, string(b)))
		return err
	}
	if len(rows) == 0 {
		fmt.Fprintf(ios.Out, "no stored MCP approvals in %s\n", untrusted.TerminalLine(filepath.Dir(paths[0])))
		return nil
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tSERVER\tTOOL\tGRANTED\tDIR\tCOMMAND")
	for _, r := range rows {
		if r.Record == nil {
			fmt.Fprintf(tw, "legacy\t-\t-\t-\t-\t(key %s…, stored before odek recorded what grants cover; revoke with --all)\n", r.Key[:min(12, len(r.Key))])
			continue
		}
		name, tool := r.Server, r.Tool
		if r.Kind == "hook" {
			name, tool = r.Hook, strconv.Quote(r.Matcher)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", untrusted.TerminalLine(r.Kind), untrusted.TerminalLine(name), dash(untrusted.TerminalLine(tool)),
			r.GrantedAt.Format("2006-01-02 15:04 UTC"), dash(untrusted.TerminalLine(r.Dir)), untrusted.TerminalLine(r.Command)+boundFiles(r.Files))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// boundFiles names the project files a spawn grant is bound to.
func boundFiles(files map[string]string) string {
	if len(files) == 0 {
		return ""
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, untrusted.TerminalLine(f))
	}
	slices.Sort(names)
	return " (bound to the content of " + strings.Join(names, ", ") + ")"
}

// runApprovalsRevoke removes the grants and says how many.
func runApprovalsRevoke(_ context.Context, o *approvalsRevokeOptions) error {
	if o.hooks {
		return revokeHooks(o.io)
	}
	ios, server := o.io, o.server
	stores, _, err := approvalStores(ios)
	if err != nil {
		return err
	}
	match := func(e approval.Entry) bool { return server == "" || e.Record != nil && e.Record.Server == server }
	total := 0
	for _, s := range stores {
		n, err := s.Revoke(match)
		if err != nil {
			return err
		}
		total += n
	}
	switch {
	case server == "":
		fmt.Fprintf(ios.Out, "revoked %d stored approval(s)\n", total)
	case total == 0:
		return errclass.Wrap(errclass.SetupError, noApprovalsError(server, stores))
	default:
		fmt.Fprintf(ios.Out, "revoked %d stored approval(s) of server %q\n", total, server)
	}
	return nil
}

// revokeHooks removes every project hook's grant (--hooks).
func revokeHooks(ios *iostreams.IOStreams) error {
	stores, _, err := approvalStores(ios)
	if err != nil {
		return err
	}
	n, err := stores[2].Revoke(func(approval.Entry) bool { return true })
	if err != nil {
		return err
	}
	fmt.Fprintf(ios.Out, "revoked %d stored hook approval(s)\n", n)
	return nil
}

// noApprovalsError names a server without stored approvals, with the
// nearest server that has some: a naming mistake, like any other (exit 3).
func noApprovalsError(server string, stores [3]*approval.Store) error {
	var known []string
	for _, s := range stores {
		for _, e := range s.Entries() {
			if e.Record != nil && !slices.Contains(known, e.Record.Server) {
				known = append(known, e.Record.Server)
			}
		}
	}
	hint := " (see odek approvals list)"
	if near := suggest.Nearest(server, known); near != "" {
		hint = fmt.Sprintf("; did you mean %q?", near)
	}
	return fmt.Errorf("approvals: no stored approvals for server %q%s", untrusted.TerminalLine(server), hint)
}
