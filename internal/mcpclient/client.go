package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/telemetry"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/odek-run/odek/internal/artifact"
)

// Options carries what a Client needs from its surroundings, so tests (and the
// CLI) control the environment, the log writer and the network.
type Options struct {
	// Stderr receives the server's stderr, each line prefixed "[<server>] ". nil discards it.
	Stderr io.Writer
	// LookupEnv reads the variable named by token_env; nil = os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Environ is the parent environment the child's is filtered from; nil = os.Environ().
	Environ []string
	// HTTPClient is used for url servers; nil = a plain client without redirects.
	HTTPClient *http.Client
	// Store keeps whole results that max_result_chars cut and registers
	// validated artifact refs; nil = neither.
	Store artifact.ResultStore
	// Version is sent as clientInfo.version; "" = "dev".
	Version string
	// Sandbox, when set, gives the policy a stdio server runs under (nil:
	// none, as for sandbox "off"); the server then starts through the
	// sandbox launcher (proc).
	Sandbox func(cfg ServerConfig) (*sandbox.Policy, error)
	// OnNotice receives what servers did that belongs in the event stream
	// (input answered or declined, progress); nil drops it. It is called
	// from the connection's goroutines and must not block.
	OnNotice func(Notice)
	// Elicit, when set, is asked a server's form elicitation that the
	// configured values cannot answer (none configured, or a required
	// field without one), and odek then declares the elicitation
	// capability to every server. nil: only configured values answer, as
	// when odek runs with nobody to ask.
	Elicit Elicitor
	// InterruptGrace is each step of CloseNow; 0 = 250 ms. Tests of what
	// happens during that wait widen it so the wait is not the race.
	InterruptGrace time.Duration
	// Tap, when set, gives the recorder of a server's messages.
	Tap func(server string) (WireTap, error)
	// Replay, when set, gives the stand-in for a server: no process is
	// started and no connection opened.
	Replay func(server string) (Peer, error)
	// Telemetry, when set, puts each request in an MCP client span and
	// carries its trace context to the server (docs/TELEMETRY.md).
	Telemetry *telemetry.Tracer
	// TelemetryFor, when set, gives each request's tracer instead of
	// Telemetry (nil: not traced): servers kept across runs (an ACP
	// session's) trace each request with the run it serves.
	TelemetryFor func() *telemetry.Tracer

	// discovery bounds tools/list; zero fields take the defaults (tests
	// lower them).
	discovery discoveryLimits
	// timings lets this package's tests change the waits of one Client.
	timings timings
	// dial, set by this package's tests, gives the transport instead of a
	// process or a connection: the in-memory pair, for tests of the
	// protocol where a process is not the point.
	dial func(c *Client) (transport, error)
	// recheck, set by Start from a Gate that is a Rechecker, re-checks
	// without asking anyone that the server may be started again; nil:
	// a project server is never restarted.
	recheck   func(ctx context.Context) error
	rechecker Rechecker // Start's Gate, when it can re-check
	// trustHints is the operator's trust_annotations (never for a project
	// server): only then may a call be replayed on a restarted server.
	trustHints bool
	// project is set by Start for a server a project file defines, dir its
	// project directory: its artifact_roots widen no sandbox, and count
	// only where they resolve inside dir.
	project bool
	dir     string
}

// Client is one connection to one MCP server. It is safe for concurrent use:
// calls are multiplexed by request id over a single connection.
type Client struct {
	name   string
	cfg    ServerConfig
	opts   Options
	lim    limits
	read   *readLimit // lim.maxResp, lowered during discovery
	warn   []string
	connMu sync.Mutex // guards conn, which a restart replaces
	conn   *conn
	tap    WireTap // the recorder, kept across restarts
	sink   *stderrSink
	http   *httpTransport // nil for stdio
	inited atomic.Bool    // opened now (a restart clears it while it reopens)
	opened atomic.Bool    // opened once: calls may be made
	state  atomic.Pointer[serverState]

	outSchemas  outputSchemas
	links       linkSet     // resource_link URIs its results named
	calls       activeCalls // tool calls in flight, for legacy server requests
	progressSeq atomic.Int64

	initMu    sync.Mutex // serialises the handshake
	closeOnce sync.Once
	closeErr  error
	closing   atomic.Bool

	restart restartState
}

// New starts the server with default Options (os environment, stderr discarded).
func New(name string, cfg ServerConfig) (*Client, error) {
	return Connect(context.Background(), name, cfg, Options{})
}

// Connect validates cfg and starts the server process (stdio) or prepares the
// HTTP endpoint (url). It does not talk MCP yet: Discover performs the handshake.
func Connect(ctx context.Context, name string, cfg ServerConfig, o Options) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lim, warn, err := checkConfig(name, cfg)
	if err != nil {
		return nil, err
	}
	if o.timings.request > 0 && cfg.TimeoutSeconds == 0 {
		lim.timeout = o.timings.request
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	c := &Client{name: name, cfg: cfg, opts: o, lim: lim, read: newReadLimit(lim.maxResp), warn: warn,
		sink: &stderrSink{w: o.Stderr, prefix: "[" + name + "] "}}
	var t transport
	switch {
	case o.Replay != nil:
		p, err := o.Replay(name)
		if err != nil {
			return nil, newError(name, "replay", classSetup, err)
		}
		t = peerTransport{p: p}
	case cfg.URL != "":
		h, hw, err := newHTTPTransport(name, cfg, c.read, o)
		if err != nil {
			return nil, err
		}
		c.warn = append(c.warn, hw...)
		c.http, t = h, h
	default:
		t, err = c.startProcess()
		if err != nil {
			return nil, err
		}
	}
	if o.Tap != nil {
		tap, err := o.Tap(name)
		if err != nil {
			_ = t.close(grace{})
			return nil, newError(name, "record", classSetup, err)
		}
		c.tap = tap
	}
	c.conn = newConn(c.tapped(t), c.serveRequest)
	return c, nil
}

// tapped wraps t in the recorder, if there is one.
func (c *Client) tapped(t transport) transport {
	if c.tap == nil {
		return t
	}
	return tapTransport{transport: t, tap: c.tap}
}

// link returns the connection in use now (a restart replaces it).
func (c *Client) link() *conn {
	c.connMu.Lock()
	defer c.connMu.Unlock()
	return c.conn
}

// serveRequest answers a legacy server's elicitation/create (from the
// configured values or a person, declining without either); everything
// else is -32601.
func (c *Client) serveRequest(ctx context.Context, method string, params json.RawMessage) (any, bool) {
	if method == methodElicitationCreate {
		return c.answerElicitation(ctx, params), true
	}
	return nil, false
}

// startProcess starts the server (at Connect, and again on a restart);
// under a test's dial hook it joins the in-memory pair instead.
func (c *Client) startProcess() (transport, error) {
	if c.opts.dial != nil {
		return c.opts.dial(c)
	}
	parent := c.opts.Environ
	if parent == nil {
		parent = os.Environ()
	}
	env, refused := childEnv(parent, c.cfg.Env)
	for _, k := range refused {
		c.warn = append(c.warn, fmt.Sprintf("mcp server %q: env %q looks secret-bearing or invalid; not passed to the server", c.name, k))
	}
	var pol *sandbox.Policy
	if c.opts.Sandbox != nil {
		cfg := c.cfg
		if c.opts.project {
			// The policy makes artifact roots writable: a project file
			// naming $HOME, or a root that is a symlink out of the
			// workspace, would take its server out of the sandbox. The
			// workspace itself is granted anyway.
			cfg.ArtifactRoots = nil
		}
		var err error
		if pol, err = c.opts.Sandbox(cfg); err != nil {
			return nil, newError(c.name, "sandbox "+c.cfg.Command, classSetup, err)
		}
	}
	if pol != nil && pol.TempDir != "" {
		env = withTmpDir(env, pol.TempDir)
	}
	t, err := startStdio(c.name, c.cfg, env, pol, c.read, c.sink)
	if err != nil {
		return nil, newError(c.name, "start "+c.cfg.Command, classSetup, err)
	}
	return t, nil
}

// Name returns the server name from the configuration.
func (c *Client) Name() string { return c.name }

// Warnings returns non-fatal configuration issues (clamped limits, refused env
// names, a missing token) for the caller to show the operator.
func (c *Client) Warnings() []string { return append([]string(nil), c.warn...) }

// ArtifactRoots returns the directories artifact refs from this server may
// point into; empty means every ref is rejected.
func (c *Client) ArtifactRoots() []string { return append([]string(nil), c.cfg.ArtifactRoots...) }

// StderrTail returns the last few KiB the server wrote to stderr.
func (c *Client) StderrTail() string { return c.sink.tailString() }

// Close shuts the server down: it lets in-flight calls finish (up to the exit
// grace), closes stdin, waits up to 5 s for the process to exit, then kills its
// process group. Idempotent; no goroutine or process of this Client survives it.
func (c *Client) Close() error {
	return c.shutdown(grace{exit: or(c.opts.timings.exit, exitGrace), term: or(c.opts.timings.term, termGrace)})
}

// CloseNow is Close for an interrupted run: each step gets interruptGrace
// (stdin closed, then SIGTERM, then the process group is killed), so the
// whole shutdown takes about half a second even for a server that ignores
// both. Idempotent with Close: whichever comes first decides.
func (c *Client) CloseNow() error {
	g := or(c.opts.InterruptGrace, or(c.opts.timings.interrupt, interruptGrace))
	return c.shutdown(grace{exit: g, term: g})
}

func (c *Client) shutdown(g grace) error {
	c.closeOnce.Do(func() {
		c.closing.Store(true) // before link: a restart swaps in no conn after this
		cn := c.link()
		cn.waitIdle(g.exit)
		c.closeErr = cn.stop(g)
	})
	return c.closeErr
}

// closeFor closes c the way ctx asks: at once when ctx has ended (the run was
// interrupted or timed out), gracefully otherwise.
func (c *Client) closeFor(ctx context.Context) error {
	if ctx.Err() != nil {
		return c.CloseNow()
	}
	return c.Close()
}

// requestTimeout is the effective deadline of one request: the server's
// timeout, or the caller's deadline when that comes first.
func (c *Client) requestTimeout(ctx context.Context) time.Duration {
	d := c.lim.timeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < d {
			d = max(left, 0)
		}
	}
	return d
}
