package agentrun

import (
	"fmt"

	"github.com/odek-run/odek/internal/agentsmd"
	"github.com/odek-run/odek/internal/cassette"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
)

// discoverAgents reads the project instructions (AGENTS.md: the
// operator's, then the repository's from its root down to the working
// directory) unless no_agents turns them off, and warns about what it
// skipped or cut; quiet (a sub-agent, whose parent already warned) keeps
// the warnings to itself. The files only ever reach the system prompt:
// nothing in them is read as a setting. A continued session keeps the
// prompt it began with, so it reads none.
func (r *Run) discoverAgents(ios *iostreams.IOStreams, quiet bool) {
	cfg := r.conf.cfg
	if cfg.NoAgents || r.o.Resume != nil || r.child != nil && r.child.task.NoAgents {
		return
	}
	files, warns := agentsmd.Discover(agentsmd.Options{Dir: cfg.Dir, Home: cfg.Home, MaxBytes: cfg.AgentsMaxBytes})
	for _, f := range files {
		if f.Truncated {
			warns = append(warns, agentsmd.Notice(f))
		}
	}
	if !quiet {
		runview.PrintWarnings(ios, warns)
	}
	r.agents = files
}

// agentsFiles are the files read, as the report and run_started name
// them; nil when there were none.
func (r *Run) agentsFiles() []runview.AgentsFile {
	var out []runview.AgentsFile
	for _, f := range r.agents {
		out = append(out, runview.AgentsFile{Name: f.Name, Scope: f.Scope, SHA256: f.SHA256,
			Bytes: f.Bytes, ShownBytes: f.Shown, Truncated: f.Truncated})
	}
	return out
}

// cassetteAgents are the files a recording's meta names.
func (r *Run) cassetteAgents() []cassette.AgentsFile {
	var out []cassette.AgentsFile
	for _, f := range r.agents {
		out = append(out, cassette.AgentsFile{Name: f.Name, SHA256: f.SHA256})
	}
	return out
}

// checkReplayAgents refuses a replay whose AGENTS.md files are not the
// recording's: the system prompt would differ from the first request on,
// and the error names the file rather than a request body.
func (r *Run) checkReplayAgents() error {
	if !r.cas.replaying() || r.cas.flags.Stream != "" { // a sub-agent's stream has no meta of its own
		return nil
	}
	if d := cassette.AgentsMismatch(r.cas.play.Meta().AgentsFiles, r.cassetteAgents()); d != "" {
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("--replay: the project instructions differ from the recording's: %s (record the cassette again)", d))
	}
	return nil
}
