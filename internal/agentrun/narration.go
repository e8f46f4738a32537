package agentrun

import (
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/runview"
)

// narrationOptions shows, with interaction_mode enhance or verbose, the
// model's words between its tool calls and (verbose) the start of each
// tool result on the progress view, beside what OnReply and AfterBatch
// already do (the stream lines, the session). off made the run quiet in
// Setup; engaging is the view as it is.
func (r *Run) narrationOptions(opts *loop.Options) {
	v, mode := r.sinks.view, r.conf.cfg.InteractionMode
	if v == nil || (mode != runview.ModeEnhance && mode != runview.ModeVerbose) {
		return
	}
	v.SetMode(mode)
	reply, after := opts.OnReply, opts.AfterBatch
	opts.OnReply = func(i int, m llm.Message) {
		v.Reply(i, m)
		if reply != nil {
			reply(i, m)
		}
	}
	opts.AfterBatch = func(h []llm.Message) {
		v.Results(h)
		if after != nil {
			after(h)
		}
	}
}
