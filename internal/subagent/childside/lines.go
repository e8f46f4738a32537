package childside

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// LineWriter is the child's side of the stream: typed lines (with
// --stream and protocol 2) and the result, one JSON object per line, from
// any goroutine. Without streaming only the result is written, as one
// object. Write errors are ignored: the parent is gone and the exit code
// still tells.
type LineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	taskID string
	stream bool
	// Version is stamped on the result as odek_version.
	Version string
}

// NewLineWriter writes to w (the child's stdout).
func NewLineWriter(w io.Writer, taskID string, stream bool) *LineWriter {
	return &LineWriter{w: w, taskID: taskID, stream: stream}
}

// Streaming reports whether typed lines are written.
func (lw *LineWriter) Streaming() bool { return lw != nil && lw.stream }

// Send writes one typed line (only when streaming).
func (lw *LineWriter) Send(l wire.Line) {
	if !lw.Streaming() {
		return
	}
	l.TaskID = lw.taskID
	lw.write(l)
}

// Result writes the result: framed as a "result" line when streaming, else
// the bare object.
func (lw *LineWriter) Result(r *wire.Result) {
	if lw == nil {
		return
	}
	if r.OdekVersion == "" {
		r.OdekVersion = lw.Version
	}
	if lw.stream {
		lw.write(wire.Line{Type: wire.LineResult, TaskID: lw.taskID, Result: r})
		return
	}
	lw.write(r)
}

// ArtifactFrame writes the artifact frame of refs, read from root, after
// the result (wire.WriteArtifactFrame); write errors are ignored as the
// result's are.
func (lw *LineWriter) ArtifactFrame(root string, refs []artifact.Ref) {
	if lw == nil {
		return
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	_ = wire.WriteArtifactFrame(lw.w, lw.taskID, root, refs)
}

// Write implements events.Sink: each event becomes an "event" line.
func (lw *LineWriter) Write(ev *events.Event) error {
	raw, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	lw.Send(wire.Line{Type: wire.LineEvent, Event: raw})
	return nil
}

func (lw *LineWriter) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	b = append(b, '\n')
	lw.mu.Lock()
	defer lw.mu.Unlock()
	_, _ = lw.w.Write(b)
}
