package kube

import (
	"context"
	"io"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// relay passes a pod's log on as the child's stdout: every line as it came,
// except the artifact frame, which it keeps, and the result line, which
// it holds back until the artifacts are in the parent's root.
type relay struct {
	out      io.Writer
	frame    *wire.FrameReader
	frameErr error
	result   []byte // the last result line
}

func newRelay(out io.Writer) *relay {
	return &relay{out: out, frame: wire.NewFrameReader(wire.DefaultStreamLimits().MaxBytes)}
}

// line takes one line of the log.
func (r *relay) line(line []byte) error {
	if took, err := r.frame.Line(line); took {
		if err != nil && r.frameErr == nil {
			r.frameErr = err
		}
		return nil
	}
	if wire.ResultLine(line) != nil {
		r.result = append(r.result[:0], line...)
		return nil
	}
	_, _ = r.out.Write(line) // a parent that is gone still lets the helper clean up
	return nil
}

// read relays the log under a local child's stdout caps; a broken cap is
// a *wire.FloodError.
func (r *relay) read(ctx context.Context, log io.ReadCloser) error {
	stop := context.AfterFunc(ctx, func() { _ = log.Close() })
	defer stop()
	defer log.Close()
	_, _, err := wire.EachLine(log, wire.StreamLimits{}, r.line)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
