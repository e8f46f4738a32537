package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// maxAnswerBytes is how much of a collector's answer is read: enough for
// an error message, never a stream.
const maxAnswerBytes = 4 << 10

// exporter sends spans (or metrics) to an OTLP/HTTP collector as
// protobuf. It never retries and never returns an error to the SDK (whose
// global handler would print it): the first failure becomes the one
// warning, and every span lost is counted; Tracer.Shutdown reports both.
type exporter struct {
	what     string // "traces" or "metrics", for the warning
	url      string
	headers  map[string]string
	gzip     bool
	timeout  time.Duration
	client   *http.Client
	res      []attribute.KeyValue
	schema   string
	mu       sync.Mutex
	first    string // the first failure, as the run's one warning
	lost     atomic.Int64
	inflight atomic.Int64 // spans in the post under way
	sent     atomic.Int64
	stopped  atomic.Bool
	// base ends every post: abort cancels it when the flush at shutdown
	// runs out of time, so no export outlives Tracer.Shutdown.
	base  context.Context
	abort context.CancelFunc
}

var _ sdktrace.SpanExporter = (*exporter)(nil)

// ExportSpans posts one batch; a failure is recorded, not returned.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	if e.stopped.Load() {
		e.lost.Add(int64(len(spans)))
		return nil
	}
	e.inflight.Store(int64(len(spans)))
	defer e.inflight.Store(0)
	if e.deliver(ctx, encodeSpans(e.res, e.schema, spans)) {
		e.sent.Add(int64(len(spans)))
	} else {
		e.lost.Add(int64(len(spans)))
	}
	return nil
}

// deliver posts body and reports whether it arrived; the first failure
// is kept for the run's warning.
func (e *exporter) deliver(ctx context.Context, body []byte) bool {
	err := e.post(ctx, body)
	if err == nil {
		return true
	}
	e.mu.Lock()
	if e.first == "" {
		e.first = fmt.Sprintf("telemetry: %s could not be exported to %s: %v", e.what, e.url, err)
	}
	e.mu.Unlock()
	return false
}

// post sends body within the export timeout and ctx, unless aborted.
func (e *exporter) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	stop := context.AfterFunc(e.base, cancel)
	defer stop()
	var rd io.Reader = bytes.NewReader(body)
	if e.gzip {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(body) // a bytes.Buffer does not fail
		zw.Close()
		rd = &z
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, rd)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrExport, err)
	}
	for k, v := range e.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		switch {
		case e.base.Err() != nil:
			return fmt.Errorf("%w: no answer before the end of the run", ErrExport)
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return fmt.Errorf("%w: no answer in time", ErrExport)
		}
		return fmt.Errorf("%w: %v", ErrExport, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if resp.StatusCode/100 != 2 {
		return &StatusError{Status: resp.StatusCode, Body: printable(answer)}
	}
	return nil
}

// firstError is the first failure's warning, "" when every export worked.
func (e *exporter) firstError() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.first
}

// Shutdown stops exporting; the SDK flushed what it had before calling it.
func (e *exporter) Shutdown(context.Context) error {
	e.stopped.Store(true)
	return nil
}

// printable is a collector's answer for a warning: text only, one line,
// short (a protobuf Status is binary).
func printable(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if r < ' ' || r == 0x7f || r == 0xfffd {
			return -1
		}
		return r
	}, string(b))
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
