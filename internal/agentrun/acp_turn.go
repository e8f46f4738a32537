package agentrun

import (
	"context"
	"encoding/json"

	"github.com/odek-run/odek/internal/acp"
	"github.com/odek-run/odek/internal/approval"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/runview"
)

// acpTurn is what an ACP turn adds to a run: the client answers the
// policy's prompts, hears the events, replies and batches, brings its MCP
// servers; the run leaves its result here.
type acpTurn struct {
	asker   policy.Asker
	confirm approval.Confirmer // the client, for approvals; nil: none
	obs     acp.Observer
	servers []config.MCPServer
	kept    *acpServers // the session's MCP servers
	result  *acp.TurnResult
}

// approvals make the client the Confirmer of an ACP turn's approval
// Gate, its answers kept for the session only (o.Ephemeral).
func (t *acpTurn) approvals(o *approval.Options) {
	if t == nil || t.confirm == nil {
		return
	}
	o.Confirmer, o.Ephemeral = t.confirm, true
}

// keptServers are the session's MCP servers for an ACP turn, else nil.
func (t *acpTurn) keptServers() *acpServers {
	if t == nil {
		return nil
	}
	return t.kept
}

// gateAsker is the client's Asker for an ACP turn, else nil.
func (t *acpTurn) gateAsker() policy.Asker {
	if t == nil {
		return nil
	}
	return t.asker
}

// sinks are the observer as one more event sink, for an ACP turn.
func (t *acpTurn) sinks() []events.Sink {
	if t == nil || t.obs == nil {
		return nil
	}
	return []events.Sink{t.obs}
}

// applyConfig adds the client's servers to the config.
func (t *acpTurn) applyConfig(cfg *config.Config) {
	if t != nil && cfg != nil {
		mergeACPServers(cfg, t.servers)
	}
}

// loopOptions chain the observer after the run's own OnReply and
// AfterBatch (the session is saved before the client hears the batch).
func (t *acpTurn) loopOptions(opts *loop.Options) {
	if t == nil || t.obs == nil {
		return
	}
	reply, batch, obs := opts.OnReply, opts.AfterBatch, t.obs
	opts.OnReply = func(i int, m llm.Message) {
		if reply != nil {
			reply(i, m)
		}
		obs.Reply(i, m)
	}
	opts.AfterBatch = func(h []llm.Message) {
		if batch != nil {
			batch(h)
		}
		obs.Batch(h)
	}
}

// done records how the turn ended, in the run report's terms; sig is the
// signal context.
func (r *Run) acpDone(sig context.Context, res *loop.Result, runErr error) {
	t := r.o.acp
	if t == nil {
		return
	}
	rep := runview.NewReport(sig, r.o.IO, r.facts(), res, runErr)
	tr := &acp.TurnResult{Termination: rep.TerminationReason, Error: rep.Error, Report: reportMap(rep)}
	if runErr != nil {
		tr.ErrorClass = errorClass(runErr)
	}
	if res != nil {
		tr.Answer, tr.Usage = res.Answer, res.Usage
	}
	if r.limits.tracker != nil {
		snap := r.limits.tracker.Snapshot()
		tr.Priced, tr.CostUSD = snap.Priced, float64(snap.CostMicroUSD)/1e6
	}
	t.result = tr
}

// reportMap is the report as JSON's map, for _meta.
func reportMap(rep runview.Report) map[string]any {
	b, err := json.Marshal(rep)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}
