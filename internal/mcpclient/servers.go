package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/untrusted"
)

// ServerSpec is one configured server as Start needs it.
type ServerSpec struct {
	Name   string
	Config ServerConfig
	// Project marks a server defined in a project file: it needs spawn approval.
	Project bool
	// Dir is the project directory the definition came from (part of approval keys).
	Dir string
	// AutoApprove is set by the caller only for servers the operator's global
	// config defines with auto_approve (DECISION 2: never a command-less
	// marker). It waives prompts, never the schema scan, size cap, name checks
	// or env sanitisation.
	AutoApprove bool
}

// Gate decides what Start may run: it is asked before any server is spawned
// and again, per server, before its tools are registered. internal/approval
// implements it with the operator's grants; Start only follows its answers.
type Gate interface {
	// Spawn reports whether spec's server may be started. false with a nil
	// error means the run goes on without it; the warnings say why. An error
	// fails Start before anything is spawned.
	Spawn(ctx context.Context, spec ServerSpec) (start bool, warnings []string, err error)
	// Tools returns the tools of spec that may be registered (possibly with
	// descriptions replaced), and warnings about the others. An error fails
	// Start.
	Tools(ctx context.Context, spec ServerSpec, tools []ToolDef) ([]ToolDef, []string, error)
}

// StartOptions configures Start.
type StartOptions struct {
	Servers []ServerSpec
	// Builtins are the built-in tool names no registered <server>__<tool>
	// name may equal (the CLI passes every built-in name, also of tools
	// switched off this run). A raw tool name may equal one: it is
	// registered qualified, so it shadows nothing.
	Builtins []string
	// Gate approves servers and tools; required (a nil Gate is a setup error).
	Gate Gate
	// Client is passed to every Connect.
	Client Options
	// Keep, when set, says which tools (by qualified <server>__<tool> name)
	// the run will offer; the others are dropped before approval, so nobody
	// is asked about a tool the configuration has switched off.
	Keep func(qualified string) bool
}

// Set is the running servers of one odek run and their approved tools.
type Set struct {
	clients    []*Client
	tools      []*ToolAdapter
	discovered []string // every tool the servers listed, <server>__<tool>, Keep or not
	once       sync.Once
	err        error
}

// Tools returns the approved tools, named <server>__<tool>, sorted by name.
func (s *Set) Tools() []*ToolAdapter { return slices.Clone(s.tools) }

// Discovered returns the qualified names of every tool the started servers
// listed, sorted, including those Keep dropped and those not approved: the
// names a tool filter may refer to.
func (s *Set) Discovered() []string { return slices.Clone(s.discovered) }

// Clients returns the connected servers, in name order.
func (s *Set) Clients() []*Client { return slices.Clone(s.clients) }

// Close shuts every server down concurrently (each may take seconds).
// Idempotent.
func (s *Set) Close() error {
	s.once.Do(func() { s.err = closeClients(context.Background(), s.clients) })
	return s.err
}

// CloseNow shuts every server down concurrently within about half a second
// (Client.CloseNow): for an interrupted run. Idempotent with Close.
func (s *Set) CloseNow() error {
	s.once.Do(func() { s.err = closeClients(canceled, s.clients) })
	return s.err
}

// canceled is an ended context: closeClients closes at once under it.
var canceled = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// Start brings up the configured MCP servers: the Gate rules on every
// server before anything is spawned, then all servers connect and discover
// concurrently, then each server's tools are checked against the built-ins,
// passed through the Gate, and registered as <server>__<tool>. Any failure
// closes what was started and returns a *SetupError. Warnings (clamped
// limits, skipped servers and tools, withheld descriptions) are returned for
// the caller to show.
func Start(ctx context.Context, o StartOptions) (*Set, []string, error) {
	if o.Gate == nil {
		return nil, nil, setupErr("", "mcpclient: Start needs an approval Gate", errNoGate)
	}
	specs, err := activeSpecs(o.Servers)
	if err != nil {
		return nil, nil, err
	}
	specs, warns, err := allowedSpecs(ctx, o.Gate, specs)
	if err != nil {
		return nil, warns, err
	}
	if r, ok := o.Gate.(Rechecker); ok {
		o.Client.rechecker = r
	}
	started, skipped, err := connectAll(ctx, specs, o.Client)
	warns = append(warns, skipped...)
	if err != nil {
		return nil, warns, err
	}
	set := &Set{}
	for _, st := range started {
		set.clients = append(set.clients, st.client)
		warns = append(warns, st.client.Warnings()...)
		for _, t := range st.tools {
			set.discovered = append(set.discovered, st.spec.Name+"__"+t.Name)
		}
	}
	slices.Sort(set.discovered)
	tools, tw, err := registerTools(ctx, keepTools(started, o.Keep), o.Gate, reservedNames(o.Builtins))
	warns = append(warns, tw...)
	if err != nil {
		_ = closeClients(ctx, set.clients)
		return nil, warns, err
	}
	set.tools = tools
	return set, warns, nil
}

// activeSpecs drops disabled servers, rejects duplicate names and sorts by
// name so prompts, errors and warnings come in a stable order.
func activeSpecs(in []ServerSpec) ([]ServerSpec, error) {
	seen := map[string]bool{}
	var out []ServerSpec
	for _, s := range in {
		if s.Config.Enabled != nil && !*s.Config.Enabled {
			continue
		}
		if seen[s.Name] {
			return nil, setupErr(s.Name, fmt.Sprintf("mcp server %q: defined more than once", s.Name), errToolCollision)
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b ServerSpec) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// allowedSpecs asks the Gate about every server, in name order, before any
// is spawned, and keeps those it lets start.
func allowedSpecs(ctx context.Context, g Gate, specs []ServerSpec) ([]ServerSpec, []string, error) {
	var kept []ServerSpec
	var warns []string
	for _, spec := range specs {
		ok, w, err := g.Spawn(ctx, spec)
		warns = append(warns, w...)
		if err != nil {
			return nil, warns, asSetupErr(spec.Name, err)
		}
		if ok {
			kept = append(kept, spec)
		}
	}
	return kept, warns, nil
}

// asSetupErr keeps a Gate's error text and cause, as a *SetupError.
func asSetupErr(server string, err error) error {
	if se := (*SetupError)(nil); errors.As(err, &se) {
		return err
	}
	return setupErr(server, err.Error(), err)
}

func reservedNames(builtins []string) map[string]bool {
	r := map[string]bool{}
	for _, b := range builtins {
		r[b] = true
	}
	return r
}

// startedServer is a connected, discovered server and its tool list.
type startedServer struct {
	spec   ServerSpec
	client *Client
	tools  []ToolDef
}

// connectAll connects and discovers every server concurrently. A server
// that is not required and fails is skipped: a warning (returned) and a
// NoticeServerSkipped. If a required one fails, all that started are
// closed and the first such failure in name order is returned.
func connectAll(ctx context.Context, specs []ServerSpec, opts Options) ([]startedServer, []string, error) {
	out := make([]startedServer, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() {
			out[i].spec = spec
			out[i].client, out[i].tools, errs[i] = connectOne(ctx, spec, opts)
		})
	}
	wg.Wait()
	var clients []*Client
	var kept []startedServer
	var warns []string
	for i, st := range out {
		if st.client != nil {
			clients = append(clients, st.client)
			kept = append(kept, st)
		}
		if errs[i] != nil && !st.spec.Config.required() && ctx.Err() == nil {
			warns = append(warns, skippedWarning(st.spec.Name, errs[i]))
			opts.notice(Notice{Kind: NoticeServerSkipped, Server: st.spec.Name, Reason: errs[i].Error()})
			errs[i] = nil
		}
	}
	for _, err := range errs {
		if err != nil {
			_ = closeClients(ctx, clients)
			return nil, warns, err
		}
	}
	return kept, warns, nil
}

// skippedWarning says that an optional server is left out of the run.
func skippedWarning(name string, err error) string {
	return fmt.Sprintf("%v; it is not required (required: false), so the run goes on without its tools", err)
}

// connectOne returns a client only on success; on failure it has closed it.
func connectOne(ctx context.Context, spec ServerSpec, opts Options) (*Client, []ToolDef, error) {
	opts.project, opts.dir = spec.Project, spec.Dir
	opts.trustHints = spec.Config.TrustAnnotations && !spec.Project
	if r := opts.rechecker; r != nil {
		opts.recheck = func(ctx context.Context) error { return r.Recheck(ctx, spec) }
	}
	c, err := Connect(ctx, spec.Name, spec.Config, opts)
	if err != nil {
		return nil, nil, serverErr(spec.Name, err, "")
	}
	tools, err := c.Discover(ctx)
	if err != nil {
		_ = c.closeFor(ctx)
		return nil, nil, serverErr(spec.Name, err, c.StderrTail())
	}
	return c, tools, nil
}

// serverErr words a start failure as `mcp server "<n>": <reason>`, adding the
// server's last stderr output unless the reason already carries it.
func serverErr(name string, err error, tail string) error {
	msg := fmt.Sprintf("mcp server %q: %v", name, err)
	if tail = strings.TrimSpace(tail); tail != "" && !strings.Contains(msg, tail) {
		msg += "; stderr tail: " + tail
	}
	return setupErr(name, msg, err)
}

// closeClients closes every client concurrently; at once when ctx has ended.
func closeClients(ctx context.Context, clients []*Client) error {
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { errs[i] = c.closeFor(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// keepTools drops the tools the caller will not offer. Shadowing is checked
// on what remains: a switched-off tool is never registered under any name.
func keepTools(started []startedServer, keep func(string) bool) []startedServer {
	if keep == nil {
		return started
	}
	for i := range started {
		st := &started[i]
		kept := st.tools[:0:0]
		for _, t := range st.tools {
			if keep(st.spec.Name + "__" + t.Name) {
				kept = append(kept, t)
			}
		}
		st.tools = kept
	}
	return started
}

// registerTools rejects a registered name that is a built-in's before
// asking anyone anything, then passes each server's tools through the Gate
// and builds their adapters. A raw tool name equal to a built-in's (the
// reference filesystem server's read_file) shadows nothing: the model sees
// it as <server>__read_file (DECISION 18).
func registerTools(ctx context.Context, started []startedServer, g Gate, reserved map[string]bool) ([]*ToolAdapter, []string, error) {
	for _, st := range started {
		for _, t := range st.tools {
			if reserved[st.spec.Name+"__"+t.Name] {
				return nil, nil, setupErr(st.spec.Name, fmt.Sprintf("mcp server %q: tool %q shadows a built-in tool", st.spec.Name, t.Name), errShadowsBuiltin)
			}
		}
	}
	var tools []*ToolAdapter
	var warns []string
	owner := map[string]string{}
	for _, st := range started {
		kept, w, err := g.Tools(ctx, st.spec, st.tools)
		warns = append(warns, w...)
		if err != nil {
			return nil, warns, asSetupErr(st.spec.Name, err)
		}
		for _, t := range kept {
			a := newApprovedAdapter(st.client, st.spec.Name, t)
			a.Project = st.spec.Project
			a.TrustHints = st.spec.Config.TrustAnnotations && !st.spec.Project
			if prev, dup := owner[a.Name()]; dup {
				return nil, warns, setupErr(st.spec.Name, fmt.Sprintf("mcp server %q: tool %q collides with tool %q of server %q", st.spec.Name, t.Name, a.Name(), prev), errToolCollision)
			}
			owner[a.Name()] = st.spec.Name
			tools = append(tools, a)
		}
	}
	slices.SortFunc(tools, func(a, b *ToolAdapter) int { return strings.Compare(a.Name(), b.Name()) })
	return tools, warns, nil
}

// DescriptionPlaceholder replaces a tool description that matched an
// injection pattern (the Gate substitutes it); it is odek's own text, so it
// is not fenced as untrusted.
const DescriptionPlaceholder = "[description withheld by odek: it matched a prompt-injection pattern]"

// newApprovedAdapter fences a server-written description as untrusted data;
// odek's own placeholder stays as it is.
func newApprovedAdapter(c *Client, server string, t ToolDef) *ToolAdapter {
	listed := t.Description
	if t.Description != "" && t.Description != DescriptionPlaceholder {
		t.Description = untrusted.Wrap("mcp:"+server+":"+t.Name, t.Description)
	}
	a := NewToolAdapter(c, t)
	a.Listed = listed
	return a
}
