package agentrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/odek-run/odek/internal/acp"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/plan"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/session"
)

// ACPRunner is odek acp's acp.Runner: each session is an odek session of
// the store under the odek home, and each turn is a run set up as odek
// continue sets one up (the flags of base, the session, the prompt as the
// task), with the client answering the policy's prompts and hearing the
// run's events.
type ACPRunner struct {
	base Options
}

// NewACPRunner is the runner over base: odek acp's streams (stderr for
// diagnostics), its version and its run flags.
func NewACPRunner(base Options) *ACPRunner { return &ACPRunner{base: base} }

// List returns the saved sessions, newest first.
func (a *ACPRunner) List(context.Context) ([]session.Summary, error) {
	home, err := Home(a.base.IO)
	if err != nil {
		return nil, err
	}
	out, _, err := SessionStore(home, a.base.IO).List()
	return out, err
}

// Open loads the config of req.Cwd and creates a new odek session there,
// or loads the saved session req.ID.
func (a *ACPRunner) Open(_ context.Context, req acp.OpenRequest) (acp.Session, error) {
	ios := acpStreams(a.base.IO, req)
	cfg, err := LoadConfig(ios, a.base.Overrides)
	if err != nil {
		return nil, err
	}
	store := SessionStore(cfg.Home, ios)
	var sess *session.Session
	if req.ID != "" {
		if sess, err = store.Load(req.ID); err != nil {
			if errors.Is(err, session.ErrNotFound) {
				return nil, fmt.Errorf("%w: %s", acp.ErrUnknownSession, req.ID)
			}
			return nil, err
		}
	} else {
		var warns []string
		sess, warns, err = store.Create(session.New{Model: cfg.Model, Provider: providerOf(cfg.BaseURL), Dir: SessionDir(ios)})
		for _, w := range warns {
			fmt.Fprintf(ios.ErrOut, "odek: warning: %s\n", w)
		}
		if err != nil {
			return nil, err
		}
	}
	return &acpSession{runner: a, ios: ios, req: req, sess: sess, window: contextWindow(cfg),
		servers: &acpServers{elicit: req.Elicit}}, nil
}

// acpStreams are the streams of one ACP session's runs: stdout belongs to
// the protocol and stdin to the client, so a run has neither, no
// terminal, the client's working directory, and the client's secrets
// before the environment.
func acpStreams(base *iostreams.IOStreams, req acp.OpenRequest) *iostreams.IOStreams {
	ios := *base
	ios.In, ios.Out = strings.NewReader(""), io.Discard
	ios.StdinTTY, ios.StdoutTTY, ios.StderrTTY = false, false, false
	ios.OpenTTY = nil // the client answers every question, never a terminal
	ios.Chdir = nil
	cwd := filepath.Clean(req.Cwd)
	ios.Getwd = func() (string, error) { return cwd, nil }
	secrets, lookup := req.Secrets, base.LookupEnv
	ios.LookupEnv = func(k string) (string, bool) {
		if v, ok := secrets[k]; ok {
			return v, true
		}
		if lookup == nil {
			return "", false
		}
		return lookup(k)
	}
	return &ios
}

// acpSession is one open ACP session: an odek session and what its turns
// are set up with.
type acpSession struct {
	runner  *ACPRunner
	ios     *iostreams.IOStreams
	req     acp.OpenRequest
	sess    *session.Session
	window  int
	servers *acpServers // the MCP servers, kept across turns
}

func (s *acpSession) ID() string { return s.sess.ID }

func (s *acpSession) History() []llm.Message { return s.sess.Messages }

func (s *acpSession) ContextWindow() int { return s.window }

// Plan is the newest plan the session's messages hold.
func (s *acpSession) Plan() []plan.Step {
	p := plan.New(plan.Options{})
	restorePlan(p, s.sess.Messages)
	return p.Steps()
}

// Close stops the session's MCP servers.
func (s *acpSession) Close(context.Context) error {
	s.servers.close()
	return nil
}

// Turn is one run over the session, as odek continue: set up, run, close
// (so the emitter has flushed every event to obs), then the result.
func (s *acpSession) Turn(ctx context.Context, prompt string, obs acp.Observer) (*acp.TurnResult, error) {
	o := s.runner.base
	o.IO, o.Task, o.Session, o.Resume = s.ios, prompt, true, s.sess
	o.Quiet, o.Output = true, runview.Text
	if s.sess.Task == "" {
		s.sess.Task = redact.String(prompt) // what session list shows
	}
	t := &acpTurn{asker: s.req.Asker, confirm: s.req.Confirm, obs: obs, servers: s.req.MCPServers, kept: s.servers}
	o.acp = t
	runCtx, r, err := Setup(ctx, o)
	if err != nil {
		return nil, err
	}
	err = r.Execute(ctx, runCtx)
	r.Close(runCtx)
	if t.result == nil {
		return nil, err
	}
	return t.result, nil
}

// mergeACPServers puts the client's servers over the configured ones: a
// name both define is the client's.
func mergeACPServers(cfg *config.Config, client []config.MCPServer) {
	if len(client) == 0 {
		return
	}
	byName := map[string]config.MCPServer{}
	for _, sv := range cfg.MCPServers {
		byName[sv.Name] = sv
	}
	for _, sv := range client {
		sv.Project, sv.Dir = false, ""
		byName[sv.Name] = sv
	}
	out := make([]config.MCPServer, 0, len(byName))
	for _, sv := range byName {
		out = append(out, sv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	cfg.MCPServers = out
}

// errorClass is err's class, "" for none.
func errorClass(err error) string {
	var c interface{ ErrorClass() string }
	if errors.As(err, &c) {
		return c.ErrorClass()
	}
	if err != nil {
		return errclass.Error
	}
	return ""
}
