package telemetry

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The environment variables that carry a trace context into a process
// (the OpenTelemetry specification's "Environment Variables as Context
// Propagation Carriers").
const (
	EnvTraceparent = "TRACEPARENT"
	EnvTracestate  = "TRACESTATE"
	EnvBaggage     = "BAGGAGE"
)

// parentFromEnv reads the run's parent from TRACEPARENT and TRACESTATE,
// and BAGGAGE. A malformed value is ignored with a warning that quotes
// it (a trace context holds ids, not secrets; BAGGAGE may, so it is not
// quoted).
func parentFromEnv(lookup func(string) (string, bool)) (trace.SpanContext, string, []string) {
	var warn []string
	tp, _ := lookup(EnvTraceparent)
	ts, _ := lookup(EnvTracestate)
	bg, _ := lookup(EnvBaggage)
	var sc trace.SpanContext
	if tp = strings.TrimSpace(tp); tp != "" {
		carrier := propagation.MapCarrier{"traceparent": tp, "tracestate": strings.TrimSpace(ts)}
		sc = trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
		if !sc.IsValid() {
			warn = append(warn, fmt.Sprintf("telemetry: TRACEPARENT %q is not a W3C traceparent; ignored, the run starts its own trace", clip(tp, 80)))
		}
	}
	if bg = strings.TrimSpace(bg); bg != "" {
		if _, err := baggage.Parse(bg); err != nil {
			warn = append(warn, "telemetry: BAGGAGE is not W3C baggage; ignored")
			bg = ""
		}
	}
	return sc, bg, warn
}

// parented is ctx with the run's remote parent and baggage, when ctx
// has no span of its own.
func (t *Tracer) parented(ctx context.Context) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	if t.parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, t.parent)
	}
	if t.baggage != "" {
		if b, err := baggage.Parse(t.baggage); err == nil {
			ctx = baggage.ContextWithBaggage(ctx, b)
		}
	}
	return ctx
}

// Environ returns env with the trace context of ctx's span in
// TRACEPARENT, TRACESTATE and BAGGAGE, for a process odek starts (a
// sub-agent, a shell command): any of the three env held is replaced, so a
// child never sees a stale parent. With no span on ctx (tracing off) env
// is returned as it is.
func Environ(ctx context.Context, env []string) []string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return env
	}
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k != EnvTraceparent && k != EnvTracestate && k != EnvBaggage {
			out = append(out, kv)
		}
	}
	c := propagation.MapCarrier{}
	propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}).Inject(ctx, c)
	for _, k := range []string{"traceparent", "tracestate", "baggage"} {
		if v := c[k]; v != "" {
			out = append(out, strings.ToUpper(k)+"="+v)
		}
	}
	return out
}

// InjectHeaders sets traceparent (and tracestate) of ctx's span on h, for
// an HTTP request to an MCP server or a model endpoint; baggage stays
// home. Nothing is set without a span.
func InjectHeaders(ctx context.Context, h http.Header) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(h))
}

// InjectMeta puts traceparent (and tracestate) of ctx's span into an MCP
// request's params._meta (the MCP semantic conventions' carrier, in
// either era), keeping what _meta already holds. params without a span
// are returned as they are; nil params get a map.
func InjectMeta(ctx context.Context, params map[string]any) map[string]any {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return params
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	if params == nil {
		params = map[string]any{}
	}
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = make(map[string]any, 2)
	}
	for k, v := range c {
		meta[k] = v
	}
	params["_meta"] = meta
	return params
}

// ModelHeaders reports whether requests to the model endpoint at rawURL
// carry a traceparent header: by default only a loopback endpoint
// (telemetry.model_traceparent: loopback, always, never). A nil Tracer,
// or one without traces, says no.
func (t *Tracer) ModelHeaders(rawURL string) bool {
	if t == nil || !t.cfg.traces {
		return false
	}
	switch t.cfg.modelHeader {
	case PropagateAlways:
		return true
	case PropagateNever:
		return false
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	return isLoopback(u.Hostname())
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// clip cuts s to n bytes for a warning.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
