package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of every odek span.
const ScopeName = "github.com/odek-run/odek"

// SemconvSchema is the schema URL of the semantic conventions odek's
// spans follow (docs/TELEMETRY.md).
const SemconvSchema = "https://opentelemetry.io/schemas/1.40.0"

// Options configure Setup.
type Options struct {
	// LookupEnv reads the OTEL_*, TRACEPARENT, TRACESTATE and BAGGAGE
	// variables; nil = none set (tracing then follows Settings alone).
	LookupEnv func(string) (string, bool)
	Settings  Settings
	// Version is service.version ("" = none).
	Version string
	// Provider is gen_ai.provider.name of the run's model ("" = "openai":
	// odek speaks OpenAI's API).
	Provider string
	// Redact masks secrets in captured content (nil = content is never
	// captured, whatever the settings say).
	Redact func(string) string
	// HTTPClient sends the exports (nil = a client of its own).
	HTTPClient *http.Client
}

// Tracer is a run's tracing and metrics; nil is off. It is safe for
// concurrent use. With traces off and metrics on, its spans are the API's
// no-op spans, which only time what the metrics record.
type Tracer struct {
	tp       *sdktrace.TracerProvider // nil: traces are off
	tracer   trace.Tracer
	exp      *exporter // the traces' exporter; nil when off
	meter    *meter    // nil: metrics are off
	cfg      config
	provider string
	redact   func(string) string
	parent   trace.SpanContext // from TRACEPARENT/TRACESTATE; invalid = none
	baggage  string            // BAGGAGE, as given, once it parsed
}

// Setup returns the run's Tracer, or nil when nothing configures traces
// or metrics (then nothing was started). The warnings are for the
// operator: an unsupported variable, a malformed TRACEPARENT (ignored).
func Setup(o Options) (*Tracer, []string) {
	lookup := o.LookupEnv
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	cfg, on, warn := resolve(lookup, o.Settings)
	if !on {
		return nil, warn
	}
	t := &Tracer{cfg: cfg, provider: first(o.Provider, "openai"), redact: o.Redact, tracer: noop.NewTracerProvider().Tracer(ScopeName)}
	if t.redact == nil {
		t.cfg.content = false
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	res := resourceAttrs(cfg.resource, o.Version)
	if cfg.metrics {
		t.meter = newMeter(newExporter("metrics", cfg.metric, hc, res), o.Version, cfg.delta, cfg.interval)
	}
	if !cfg.traces {
		return t, warn
	}
	var w []string
	t.parent, t.baggage, w = parentFromEnv(lookup)
	warn = append(warn, w...)
	t.exp = newExporter("traces", cfg.signal, hc, res)
	bsp := sdktrace.NewBatchSpanProcessor(t.exp,
		sdktrace.WithMaxQueueSize(cfg.queue), sdktrace.WithMaxExportBatchSize(cfg.batch),
		sdktrace.WithBatchTimeout(cfg.delay), sdktrace.WithExportTimeout(cfg.exportTimeout))
	sampler, w := samplerFor(cfg.sampler, cfg.samplerArg)
	warn = append(warn, w...)
	t.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bsp), sdktrace.WithSampler(sampler))
	t.tracer = t.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(o.Version), trace.WithSchemaURL(SemconvSchema))
	return t, warn
}

// newExporter is a signal's exporter.
func newExporter(what string, s signal, hc *http.Client, res []attribute.KeyValue) *exporter {
	e := &exporter{what: what, url: s.endpoint, headers: s.headers, gzip: s.gzip, timeout: s.exportTimeout,
		client: hc, res: res, schema: SemconvSchema}
	e.base, e.abort = context.WithCancel(context.Background())
	return e
}

// Shutdown flushes what is queued and exports the metrics one last time,
// together for at most the shutdown timeout (telemetry.shutdown_timeout_seconds)
// and ctx, and stops. Its warnings: each signal's first failed export
// (once per run), the spans that were lost, a flush cut short. A nil
// Tracer has none.
func (t *Tracer) Shutdown(ctx context.Context) []string {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.cfg.shutdown)
	defer cancel()
	var warn []string
	var wg sync.WaitGroup
	if t.meter != nil {
		wg.Go(func() { t.meter.shutdown(ctx) })
	}
	if t.tp != nil {
		err := t.tp.Shutdown(ctx)
		t.exp.abort() // an export still waiting on the collector ends now
		if err != nil {
			warn = append(warn, fmt.Sprintf("telemetry: flushing traces stopped after %v", t.cfg.shutdown))
		}
		if first := t.exp.firstError(); first != "" {
			warn = append(warn, first)
		}
		if n := t.exp.lost.Load() + t.exp.inflight.Load(); n > 0 {
			warn = append(warn, fmt.Sprintf("telemetry: %d spans were not exported", n))
		}
	}
	wg.Wait()
	if t.meter != nil {
		t.meter.exp.abort() // a periodic export still waiting ends too
		<-t.meter.done
		if first := t.meter.exp.firstError(); first != "" {
			warn = append(warn, first)
		}
	}
	return warn
}

// Endpoint is the URL traces go to ("" when off).
func (t *Tracer) Endpoint() string {
	if t == nil || !t.cfg.traces {
		return ""
	}
	return t.cfg.endpoint
}

// CapturesContent reports whether prompts, replies, tool arguments and
// results go into spans (both the variable and the setting said so).
func (t *Tracer) CapturesContent() bool { return t != nil && t.cfg.content }

// resourceAttrs are the resource's attributes: odek's service name and
// the SDK's, then OTEL_RESOURCE_ATTRIBUTES (and OTEL_SERVICE_NAME), which
// win; sorted by key.
func resourceAttrs(env map[string]string, version string) []attribute.KeyValue {
	m := map[string]string{
		"service.name": "odek", "telemetry.sdk.name": "opentelemetry",
		"telemetry.sdk.language": "go", "telemetry.sdk.version": sdk.Version(),
	}
	if version != "" {
		m["service.version"] = version
	}
	for k, v := range env {
		m[k] = v
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]attribute.KeyValue, len(keys))
	for i, k := range keys {
		out[i] = attribute.String(k, m[k])
	}
	return out
}

// samplerFor is OTEL_TRACES_SAMPLER's sampler (default
// parentbased_always_on: a CI job that samples its trace out gets no
// odek spans either).
func samplerFor(name, arg string) (sdktrace.Sampler, []string) {
	ratio := func() (float64, []string) {
		if arg == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return 1, []string{fmt.Sprintf("telemetry: OTEL_TRACES_SAMPLER_ARG=%q is not a ratio in [0, 1]; 1 holds", arg)}
		}
		return r, nil
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "traceidratio":
		r, w := ratio()
		return sdktrace.TraceIDRatioBased(r), w
	case "parentbased_traceidratio":
		r, w := ratio()
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r)), w
	}
	return sdktrace.ParentBased(sdktrace.AlwaysSample()),
		[]string{fmt.Sprintf("telemetry: OTEL_TRACES_SAMPLER %q is not supported; parentbased_always_on holds", name)}
}
