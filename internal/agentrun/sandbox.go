package agentrun

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/mcpclient"
	procs "github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// sandboxState is how this run's shell commands are confined (DECISION 20).
type sandboxState struct {
	policy *sandbox.Policy // the shell's base policy; nil = no launcher (none configured)
	// held: Landlock, seccomp and scoping hold every promise, so the
	// classes the kernel contains need no prompt.
	held   bool
	info   map[string]any // run_started's "sandbox_policy", the run report's "sandbox"
	tmpMu  sync.Mutex     // guards tmpDir and swept (privateTmp)
	tmpDir string         // the run's private TMPDIR, removed at the end
	swept  chan struct{}  // closed when the sweep of dead runs' temp dirs is done
	// limit and landlock are what MCP servers' policies are built from: a
	// parent's sandbox and whether the kernel has Landlock.
	limit    *sandbox.Policy
	landlock bool
	// What the policies are built from: the settings, --full-auto, the
	// workspace and odek's home.
	cfg      config.Sandbox
	fullAuto bool
	workDir  string
	odekHome string
}

// sandboxPlan is what check settled and build makes into the shell's
// policy.
type sandboxPlan struct {
	mode    string
	network bool
	missing []string
	support sandbox.Support
	limit   *sandbox.Policy
}

// check resolves sandbox.* (and --full-auto) against what the kernel
// offers: auto without Landlock warns once and runs with the classifier
// alone; workspace-write or read-only set anywhere, sandbox.required or
// --full-auto without it is a setup error naming what is missing. A
// sub-agent's limit (its parent's sandbox, conf.place) can only narrow it.
// workDir is the workspace, symlinks resolved. It settles all that MCP
// servers' policies read, and makes every error a sandbox that cannot
// hold makes, before any server starts; build then makes the shell's
// policy. It returns no plan when there is none to build (no launcher, or
// sandbox.mode off).
func (s *sandboxState) check(ios *iostreams.IOStreams, conf *runConf, workDir string) (*sandboxPlan, error) {
	s.cfg, s.fullAuto, s.workDir, s.odekHome = conf.cfg.Sandbox, conf.fullAuto, workDir, conf.cfg.Home
	limit := conf.place.sandboxLimit
	c := s.cfg
	mode, network, strict, err := s.mode(limit)
	if err != nil {
		return nil, err
	}
	support := Seams.ProbeSandbox()
	s.info = map[string]any{"mode": sandbox.ModeOff, "landlock_abi": support.LandlockABI,
		"seccomp": false, "network": "on"}
	if procs.Launcher() == "" {
		return nil, nil
	}
	s.limit, s.landlock = limit, support.LandlockABI > 0
	if mode == sandbox.ModeOff {
		s.policy = &sandbox.Policy{Mode: sandbox.ModeOff}
		return nil, nil
	}
	missing := support.Missing(network)
	if len(missing) > 0 && strict {
		return nil, errclass.Wrap(errclass.SetupError, fmt.Errorf("the sandbox cannot hold on this system: missing %s (sandbox.mode %s%s); "+
			"run where the kernel has Landlock, or set sandbox.mode to auto or off in the global config",
			strings.Join(missing, "; "), mode, requiredNote(c.Required, s.fullAuto)))
	}
	if mode == sandbox.ModeAuto {
		mode = sandbox.ModeWorkspaceWrite
	}
	if len(missing) > 0 {
		runview.PrintWarnings(ios, []string{"sandbox: " + strings.Join(missing, "; ") + " missing: shell commands run with the classifier's policy " +
			"and whatever the kernel offers (set sandbox.required to refuse to run like this)"})
	}
	return &sandboxPlan{mode: mode, network: network, missing: missing, support: support, limit: limit}, nil
}

// build makes the shell's policy from check's plan. It may run while the
// MCP servers start: it writes only policy, held and info, which their
// policies do not read, and shares the private temp dir through
// privateTmp.
func (s *sandboxState) build(ios *iostreams.IOStreams, plan *sandboxPlan) error {
	p, err := s.basePolicy(ios, plan.mode, plan.network, plan.support.LandlockABI > 0)
	if err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	if inside := p.ProtectedInWorkspace(); len(inside) > 0 {
		runview.PrintWarnings(ios, []string{fmt.Sprintf("sandbox: the workspace %s holds protected paths (%s): commands may read and write them "+
			"like any workspace file; run odek in a project directory", s.workDir, strings.Join(inside, ", "))})
	}
	if plan.limit != nil {
		narrowed := p.Within(*plan.limit)
		p = &narrowed
	}
	if err := p.Collisions(); err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	// The paths the rules grant are opened now, before any command runs,
	// and never again by name; the read set (a walk of the protected
	// paths' ancestors, a shared /tmp or a large $HOME among them) is
	// walked by the first shell command, not before the first model
	// call: a run may never need it.
	warns, err := p.PrepareLazily()
	runview.PrintWarnings(ios, warns)
	if err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	s.policy, s.held = p, len(plan.missing) == 0
	netText := "off"
	if p.Network {
		netText = "on"
	}
	s.info = map[string]any{"mode": p.Mode, "landlock_abi": plan.support.LandlockABI,
		"seccomp": plan.support.Seccomp, "network": netText}
	return nil
}

// sandboxMode is the mode and network the settings, --full-auto and a
// parent's limit ask for, and whether a sandbox that cannot hold is fatal
// (this process's own choice: a parent's limit narrows what holds, not
// that).
func (s *sandboxState) mode(limit *sandbox.Policy) (mode string, network, strict bool, err error) {
	c := s.cfg
	mode, network = c.Mode, c.Network == "on"
	if s.fullAuto {
		if mode == sandbox.ModeOff {
			return "", false, false, errclass.Wrap(errclass.SetupError, errors.New("--full-auto needs the sandbox, but sandbox.mode is off"))
		}
		if mode != sandbox.ModeReadOnly {
			mode = sandbox.ModeWorkspaceWrite
		}
		network = false
	}
	strict = mode != sandbox.ModeAuto || c.Required || s.fullAuto
	if limit != nil && sandbox.Rank(limit.Mode) > sandbox.Rank(mode) && !(mode == sandbox.ModeAuto && limit.Mode == sandbox.ModeWorkspaceWrite) {
		mode = limit.Mode
	}
	return mode, network, strict, nil
}

func requiredNote(required, fullAuto bool) string {
	switch {
	case fullAuto:
		return ", --full-auto"
	case required:
		return ", sandbox.required"
	}
	return ""
}

// basePolicy is the policy before per-call changes: the workspace, a fresh
// private temp dir, the configured writable, readable and protected paths
// ("~/" expanded; missing writable trees created).
func (s *sandboxState) basePolicy(ios *iostreams.IOStreams, mode string, network, landlock bool) (*sandbox.Policy, error) {
	tmp, err := s.privateTmp()
	if err != nil {
		return nil, err
	}
	return s.configuredPolicy(ios, mode, network, landlock, tmp)
}

// configuredPolicy is basePolicy with the temp dir given ("" for none).
func (s *sandboxState) configuredPolicy(ios *iostreams.IOStreams, mode string, network, landlock bool, tmp string) (*sandbox.Policy, error) {
	home := ios.Env("HOME")
	p := &sandbox.Policy{Mode: mode, Network: network, Workspace: s.workDir, TempDir: tmp, Landlock: landlock}
	for _, w := range s.cfg.Writable {
		path, err := expandHome(w, home)
		if err != nil {
			return nil, fmt.Errorf("sandbox.writable_paths: %w", err)
		}
		p.Writable = append(p.Writable, path)
	}
	for _, r := range s.cfg.Readable {
		path, err := expandHome(r, home)
		if err != nil {
			return nil, fmt.Errorf("sandbox.readable_paths: %w", err)
		}
		p.Readable = append(p.Readable, path)
	}
	var extra []string
	for _, pr := range s.cfg.Protected {
		path, err := expandHome(pr, home)
		if err != nil {
			return nil, fmt.Errorf("sandbox.protected_paths: %w", err)
		}
		extra = append(extra, path)
	}
	p.Protected = sandbox.DefaultProtected(home, s.odekHome, extra...)
	if own := Seams.PasswdHome(); own != "" && filepath.Clean(own) != filepath.Clean(home) {
		// HOME may point elsewhere (a CI step, a container's HOME=/tmp,
		// sudo keeping the caller's): the secrets in the user's own home
		// are protected too.
		p.Protected = append(p.Protected, sandbox.DefaultProtected(own, "")...)
		slices.Sort(p.Protected)
		p.Protected = slices.Compact(p.Protected)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	// Refused before anything is made: a writable path inside a
	// protected one is not created.
	if err := p.Collisions(); err != nil {
		return nil, err
	}
	if p.Mode == sandbox.ModeWorkspaceWrite {
		for _, w := range p.Writable {
			if err := os.MkdirAll(w, 0o755); err != nil {
				return nil, fmt.Errorf("sandbox.writable_paths: %w", err)
			}
		}
	}
	return p, nil
}

// passwdHome is the home directory the user database names for this
// user ("" when it cannot be read).
func passwdHome() string {
	u, err := user.Current()
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return ""
	}
	return u.HomeDir
}

// privateTmp is the run's private temp dir, made on first use. The
// policies of MCP servers are built while the servers start at once: two
// project servers (sandboxed by default) with the shell's sandbox off ask
// for it together, and get the one dir the run removes at its end.
func (s *sandboxState) privateTmp() (string, error) {
	s.tmpMu.Lock()
	defer s.tmpMu.Unlock()
	if s.tmpDir != "" {
		return s.tmpDir, nil
	}
	tmp, err := os.MkdirTemp("", fmt.Sprintf("odek-tmp-%d-", os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("sandbox: private temp dir: %w", err)
	}
	// Dead runs' temp dirs are swept beside the run, not before it:
	// listing a shared /tmp is no reason to make the model wait. Only
	// once this run's own dir is made: a mkdir in a directory waits
	// while a listing of it holds the directory's lock.
	s.swept = make(chan struct{})
	go func() { sweepTmpDirs(); close(s.swept) }()
	s.tmpDir = tmp
	return tmp, nil
}

// expandHome turns "~" and "~/x" into paths under home; every path must
// then be absolute.
func expandHome(path, home string) (string, error) {
	if path == "~" || strings.HasPrefix(path, "~/") {
		if home == "" {
			return "", fmt.Errorf("%q: HOME is not set", path)
		}
		path = filepath.Join(home, path[1:])
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q is not an absolute path (or ~/…)", path)
	}
	return filepath.Clean(path), nil
}

// close waits for the sweep and removes the private temp dir.
func (s *sandboxState) close() {
	s.tmpMu.Lock()
	defer s.tmpMu.Unlock()
	if s.swept != nil {
		<-s.swept
	}
	if s.tmpDir != "" {
		_ = os.RemoveAll(s.tmpDir)
	}
}

// tmpEnv points TMPDIR (and TMP, TEMP) at the private temp dir.
func (s *sandboxState) tmpEnv(env []string) []string {
	s.tmpMu.Lock()
	defer s.tmpMu.Unlock()
	if s.tmpDir == "" {
		return env
	}
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name != "TMPDIR" && name != "TMP" && name != "TEMP" {
			out = append(out, kv)
		}
	}
	d := s.tmpDir
	return append(out, "TMPDIR="+d, "TMP="+d, "TEMP="+d)
}

// taskSandbox is this run's sandbox as a task file carries it to a
// sub-agent: the widest the child may use.
func (s *sandboxState) taskSandbox() *wire.TaskSandbox {
	p := s.policy
	if p == nil {
		return nil
	}
	return &wire.TaskSandbox{Mode: p.Mode, Network: p.Network, Workspace: p.Workspace,
		Writable: p.Writable, Readable: p.Readable, Protected: p.Protected}
}

// sandboxLimitOf is a parent's sandbox from the task file (nil: none).
func sandboxLimitOf(t *wire.TaskSandbox) *sandbox.Policy {
	if t == nil {
		return nil
	}
	return &sandbox.Policy{Mode: t.Mode, Network: t.Network, Workspace: t.Workspace,
		Writable: t.Writable, Readable: t.Readable, Protected: t.Protected}
}

// serverSandbox is the policy of one stdio MCP server (mcpclient.Options.
// Sandbox): its sandbox setting (resolved by origin: project servers
// workspace-write, global ones off), the network on, its artifact roots
// writable, narrowed by a parent's sandbox. nil runs it unconfined.
func (s *sandboxState) serverPolicy(ios *iostreams.IOStreams) func(mcpclient.ServerConfig) (*sandbox.Policy, error) {
	return func(cfg mcpclient.ServerConfig) (*sandbox.Policy, error) {
		if cfg.Sandbox == "" || cfg.Sandbox == sandbox.ModeOff || procs.Launcher() == "" {
			if s.limit == nil || s.limit.Mode == sandbox.ModeOff {
				return nil, nil
			}
			cfg.Sandbox = s.limit.Mode // a parent's sandbox holds its sub-agent's servers too
		}
		p, err := s.basePolicy(ios, cfg.Sandbox, true, s.landlock)
		if err != nil {
			return nil, err
		}
		for _, r := range cfg.ArtifactRoots {
			if filepath.IsAbs(r) {
				p.Writable = append(p.Writable, filepath.Clean(r))
			}
		}
		if s.limit != nil {
			narrowed := p.Within(*s.limit)
			p = &narrowed
		}
		if err := p.Collisions(); err != nil {
			return nil, err
		}
		warns, err := p.Prepare()
		runview.PrintWarnings(ios, warns)
		return p, err
	}
}

// sweepTmpDirs removes the private temp dirs of odek processes that are
// gone without removing theirs (killed, or a sub-agent its parent killed):
// odek-tmp-<pid>-* of this user whose pid no longer runs.
func sweepTmpDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "odek-tmp-*-*"))
	for _, d := range dirs {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), "odek-tmp-"), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || !ownedByMe(d) {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.RemoveAll(d)
		}
	}
}
