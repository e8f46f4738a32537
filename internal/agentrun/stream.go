package agentrun

import (
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/runview"
)

// streamOptions wires the stream lines into a stream-json run: the init
// line now, text and tool results as the loop goes.
func (r *Run) streamOptions(opts *loop.Options) {
	if r.o.Output != runview.StreamJSON {
		return
	}
	in := runview.Init{Model: r.conf.cfg.Model, Dir: r.tools.workDir, Version: r.o.Version,
		Tools: toolNames(r.tools.reg), OutputSchema: r.schema != nil}
	if r.servers.set != nil {
		for _, c := range r.servers.set.Clients() {
			in.Servers = append(in.Servers, c.Name())
		}
	}
	r.sinks.streamer = runview.StartStream(r.sinks.emitter, in, opts)
}
