package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// The spans of odek's own work that explains a run's time: a hook's
// run, a context trim (and the compaction it may make), a wait for the
// operator's approval. The conventions name none of them; their
// attributes are odek's, but for error.type and process.exit.code.
const (
	OpHook     = "execute_hook"
	OpTrim     = "trim_context"
	OpApproval = "await_approval"

	AttrHookEvent      = "odek.hook.event"
	AttrHookType       = "odek.hook.type"
	AttrHookOrigin     = "odek.hook.origin"
	AttrHookDecision   = "odek.hook.decision"
	AttrExitCode       = "process.exit.code"
	AttrTrimMode       = "odek.trim.mode"
	AttrTrimDropped    = "odek.trim.dropped_groups"
	AttrTrimTruncated  = "odek.trim.truncated_results"
	AttrApprovalClass  = "odek.approval.risk_class"
	AttrApprovalAnswer = "odek.approval.answer"
)

// HookInfo describes one hook handler's run.
type HookInfo struct {
	Event  string // the hook event: PreToolUse, Stop, ...
	Type   string // "command" or "http"
	Origin string // "operator" or "project"
}

// StartHook starts an execute_hook {event} span. The handler's command
// line or URL is not in it: an operator's may hold a token.
func (t *Tracer) StartHook(ctx context.Context, h HookInfo) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	ctx, s := t.tracer.Start(ctx, OpHook+" "+h.Event, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String(AttrHookEvent, h.Event), attribute.String(AttrHookType, h.Type),
			attribute.String(AttrHookOrigin, h.Origin)))
	return ctx, &Span{s: s, t: t}
}

// HookResult is what a handler did.
type HookResult struct {
	Decision string // hook_completed's decision
	ExitCode int    // a command's exit code, when HasExit
	HasExit  bool
	TimedOut bool  // killed at its timeout: error.type "timeout"
	Err      error // it failed: did not run, crashed, answered garbage
}

// EndHook ends a hook's span.
func (s *Span) EndHook(r HookResult) {
	if s == nil {
		return
	}
	if r.Decision != "" {
		s.s.SetAttributes(attribute.String(AttrHookDecision, r.Decision))
	}
	if r.HasExit {
		s.s.SetAttributes(attribute.Int(AttrExitCode, r.ExitCode))
	}
	if r.TimedOut {
		r.Err = timeoutError{r.Err}
	}
	s.end(r.Err)
}

// timeoutError gives a hook killed at its timeout error.type "timeout",
// the conventions' name.
type timeoutError struct{ error }

func (timeoutError) ErrorClass() string { return "timeout" }

func (e timeoutError) Error() string {
	if e.error == nil {
		return "timeout"
	}
	return e.error.Error()
}

// TrimInfo describes a context trim.
type TrimInfo struct {
	Mode  string    // "proactive" (before a call) or "survival" (after a length rejection)
	Start time.Time // when the trim began (zero = now)
}

// StartTrim starts a trim_context span; the compaction's model call, if
// the trim makes one, nests under it.
func (t *Tracer) StartTrim(ctx context.Context, c TrimInfo) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String(AttrTrimMode, c.Mode))}
	if !c.Start.IsZero() {
		opts = append(opts, trace.WithTimestamp(c.Start))
	}
	ctx, s := t.tracer.Start(ctx, OpTrim, opts...)
	return ctx, &Span{s: s, t: t}
}

// EndTrim ends a trim's span with what it removed.
func (s *Span) EndTrim(dropped, truncated int, err error) {
	if s == nil {
		return
	}
	s.s.SetAttributes(attribute.Int(AttrTrimDropped, dropped), attribute.Int(AttrTrimTruncated, truncated))
	s.end(err)
}

// StartApproval starts an await_approval {tool} span: the time a call
// waited for the operator's answer.
func (t *Tracer) StartApproval(ctx context.Context, tool, riskClass string) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	ctx, s := t.tracer.Start(ctx, OpApproval+" "+tool, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String(AttrToolName, tool), attribute.String(AttrApprovalClass, riskClass)))
	return ctx, &Span{s: s, t: t}
}

// EndApproval ends an approval wait with the answer ("once", "deny",
// "trust", ...) or the error that ended the wait.
func (s *Span) EndApproval(answer string, err error) {
	if s == nil {
		return
	}
	if answer != "" {
		s.s.SetAttributes(attribute.String(AttrApprovalAnswer, answer))
	}
	s.end(err)
}
