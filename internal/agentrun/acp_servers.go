package agentrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/telemetry"
)

// errNoTurn is what a kept server meets between turns: no run to save a
// result in or to sandbox a restart with.
var errNoTurn = errors.New("no turn of the session is running")

// acpServers are an ACP session's MCP servers: started by the session's
// first turn that has servers, kept for its later turns, closed with the
// session (session/close, the connection's end). A turn borrows them: what
// a server reaches of a run — the artifact store its cut results go to,
// the notices, the sandbox of a restart, the tracer, the elicitations of
// the turn — is the running turn's (cur). A turn whose servers differ (the
// config changed, the tool filters, ODEK_APPROVE_MCP) closes the old set
// and starts its own. A server that dies restarts on its next call as in
// any run (mcpclient), re-checked by the Gate it started with, whose
// answers last for the session.
type acpServers struct {
	startMu sync.Mutex // held while a set starts
	mu      sync.Mutex
	set     *mcpclient.Set
	key     string    // what set was started from
	tmp     string    // sandboxed servers' private temp dir, for the session
	cur     *keptTurn // the turn running; nil between turns
	closed  bool      // the session closed: nothing starts again
	elicit  mcpclient.Elicitor
}

// keptTurn is the run a turn borrows the servers for; done is closed when
// it returns them.
type keptTurn struct {
	r    *Run
	ios  *iostreams.IOStreams
	done chan struct{}
}

// borrow gives run r the session's servers for opts, starting them when
// there are none yet or the ones running were started from other options.
func (k *acpServers) borrow(ctx context.Context, r *Run, ios *iostreams.IOStreams, key string, opts mcpclient.StartOptions) (*mcpclient.Set, error) {
	k.startMu.Lock() // one turn runs at a time; this orders a start with a close
	defer k.startMu.Unlock()
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return nil, errors.New("the ACP session is closed")
	}
	k.cur = &keptTurn{r: r, ios: ios, done: make(chan struct{})}
	old := k.set
	if old != nil && k.key == key {
		k.mu.Unlock()
		return old, nil
	}
	k.set = nil
	k.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	// Unlocked: the servers call back (sandboxFor, notices) as they start.
	k.forward(&opts.Client)
	set, warns, err := mcpclient.Start(ctx, opts)
	runview.PrintWarnings(ios, warns)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	k.set, k.key = set, key
	k.mu.Unlock()
	return set, nil
}

// giveBack ends r's loan: until the next turn, notices are dropped and a
// server's request for input is declined.
func (k *acpServers) giveBack(r *Run) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cur != nil && k.cur.r == r {
		close(k.cur.done)
		k.cur = nil
	}
}

// close stops the servers and removes their temp dir (session close).
func (k *acpServers) close() {
	k.startMu.Lock()
	defer k.startMu.Unlock()
	k.mu.Lock()
	set, tmp := k.set, k.tmp
	k.set, k.tmp, k.closed = nil, "", true
	k.mu.Unlock()
	if set != nil {
		_ = set.Close()
	}
	if tmp != "" {
		_ = os.RemoveAll(tmp)
	}
}

// turn is the running turn, nil between turns.
func (k *acpServers) turn() *keptTurn {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.cur
}

// serversKey is what a set is started from, as text: the servers, the
// tool filters (which decide the tools kept and asked about), and whether
// every grant is given.
func serversKey(cfg *config.Config, opts mcpclient.StartOptions, approveAll bool) (string, error) {
	b, err := json.Marshal(struct {
		Servers           []mcpclient.ServerSpec
		Enabled, Disabled []string
		All               bool
	}{opts.Servers, cfg.ToolsEnabled, cfg.ToolsDisabled, approveAll})
	if err != nil {
		return "", fmt.Errorf("mcp servers: %w", err)
	}
	return string(b), nil
}

// forward points what the servers reach of a run at the running turn.
func (k *acpServers) forward(o *mcpclient.Options) {
	o.Store = keptStore{k}
	o.OnNotice = func(n mcpclient.Notice) {
		if t := k.turn(); t != nil {
			t.r.sinks.notices.Handle(n)
		}
	}
	o.Telemetry, o.TelemetryFor = nil, func() *telemetry.Tracer {
		if t := k.turn(); t != nil {
			return t.r.tel
		}
		return nil
	}
	o.Sandbox = k.sandboxFor
	if k.elicit != nil {
		o.Elicit = keptElicitor{k}
	}
}

// sandboxFor is the running turn's policy for a server, with the
// session's temp dir instead of the turn's (which goes with the turn).
func (k *acpServers) sandboxFor(cfg mcpclient.ServerConfig) (*sandbox.Policy, error) {
	t := k.turn()
	if t == nil {
		return nil, errNoTurn
	}
	p, err := t.r.tools.sandbox.serverPolicy(t.ios)(cfg)
	if err != nil || p == nil || p.TempDir == "" {
		return p, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.tmp == "" {
		if k.tmp, err = os.MkdirTemp("", fmt.Sprintf("odek-acp-tmp-%d-", os.Getpid())); err != nil {
			return nil, fmt.Errorf("sandbox: the session's temp dir: %w", err)
		}
	}
	p.TempDir = k.tmp
	return p, nil
}

// keptStore saves a kept server's results in the running turn's store.
type keptStore struct{ k *acpServers }

func (s keptStore) SaveResult(source, mediaType string, data []byte) (string, error) {
	t := s.k.turn()
	if t == nil {
		return "", errNoTurn
	}
	return t.r.tools.store.SaveResult(source, mediaType, data)
}

func (s keptStore) Register(v artifact.Verified, id string) error {
	t := s.k.turn()
	if t == nil {
		return errNoTurn
	}
	return t.r.tools.store.Register(v, id)
}

// keptElicitor asks the client for a kept server while a turn runs, and
// gives up when that turn ends.
type keptElicitor struct{ k *acpServers }

func (e keptElicitor) Elicit(ctx context.Context, q mcpclient.Elicitation) (mcpclient.ElicitAnswer, error) {
	t := e.k.turn()
	if t == nil {
		return mcpclient.ElicitAnswer{Action: "decline"}, errNoTurn
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-t.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return e.k.elicit.Elicit(ctx, q)
}
