package telemetry

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Settings are the operator's telemetry.* settings (internal/config; a
// project file cannot set them: they would send data somewhere).
type Settings struct {
	// Enabled exports traces and metrics even when no OTEL_* variable asks
	// for them (to Endpoint, else the OTLP default http://localhost:4318).
	Enabled bool
	// Endpoint is the OTLP/HTTP base URL ("/v1/traces" and "/v1/metrics"
	// are appended); OTEL_EXPORTER_OTLP_ENDPOINT and the signal's
	// …_ENDPOINT beat it.
	Endpoint string
	// CaptureContent lets prompts, replies, tool arguments and results
	// into spans, redacted, when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
	// is true as well: both must say so.
	CaptureContent bool
	// ShutdownTimeout bounds the flush of spans and the last export of
	// metrics at the end of a run (0 = DefaultShutdownTimeout).
	ShutdownTimeout time.Duration
	// ModelTraceparent says which model endpoints get a traceparent
	// header: PropagateLoopback ("" too), PropagateAlways or PropagateNever.
	ModelTraceparent string
}

// The values of Settings.ModelTraceparent.
const (
	PropagateLoopback = "loopback"
	PropagateAlways   = "always"
	PropagateNever    = "never"
)

// Defaults.
const (
	DefaultEndpoint        = "http://localhost:4318"
	DefaultShutdownTimeout = 2 * time.Second
	DefaultExportTimeout   = 10 * time.Second
	DefaultQueueSize       = 2048
	DefaultBatchSize       = 512
	DefaultScheduleDelay   = 5 * time.Second
	DefaultMetricInterval  = 60 * time.Second
	tracesPath             = "/v1/traces"
	metricsPath            = "/v1/metrics"
)

// config is what Setup resolved from the environment and the settings.
type config struct {
	traces, metrics bool          // which signals are exported
	signal                        // the traces' exporter (the embedded fields)
	metric          signal        // the metrics' exporter
	interval        time.Duration // OTEL_METRIC_EXPORT_INTERVAL
	delta           bool          // delta temporality (else cumulative)
	shutdown        time.Duration
	queue, batch    int
	delay           time.Duration
	sampler         string
	samplerArg      string
	resource        map[string]string // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME
	content         bool
	modelHeader     string
}

// signal is one signal's OTLP exporter: the OTEL_EXPORTER_OTLP_{SIGNAL}_*
// variables, else the OTEL_EXPORTER_OTLP_* ones.
type signal struct {
	endpoint      string            // the full URL
	headers       map[string]string // …_HEADERS
	gzip          bool
	exportTimeout time.Duration
}

// resolve reads the standard variables through lookup and the settings.
// on is false when neither traces nor metrics are asked for, or
// something turns them off (OTEL_SDK_DISABLED, OTEL_{TRACES,METRICS}_EXPORTER=none,
// an unsupported protocol); cfg.traces and cfg.metrics say which is on.
func resolve(lookup func(string) (string, bool), s Settings) (cfg config, on bool, warn []string) {
	get := func(k string) string {
		if v, ok := lookup(k); ok {
			return strings.TrimSpace(v)
		}
		return ""
	}
	if b, err := strconv.ParseBool(get("OTEL_SDK_DISABLED")); err == nil && b {
		return cfg, false, nil
	}
	var w []string
	cfg.signal, cfg.traces, w = resolveSignal(get, s, "TRACES", tracesPath)
	warn = append(warn, w...)
	cfg.metric, cfg.metrics, w = resolveSignal(get, s, "METRICS", metricsPath)
	warn = append(warn, w...)
	if !cfg.traces && !cfg.metrics {
		return config{}, false, unique(warn)
	}
	cfg.delay = millis(get, &warn, DefaultScheduleDelay, "OTEL_BSP_SCHEDULE_DELAY")
	cfg.queue = count(get, &warn, DefaultQueueSize, "OTEL_BSP_MAX_QUEUE_SIZE")
	cfg.batch = min(count(get, &warn, DefaultBatchSize, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"), cfg.queue)
	cfg.sampler, cfg.samplerArg = get("OTEL_TRACES_SAMPLER"), get("OTEL_TRACES_SAMPLER_ARG")
	cfg.interval = millis(get, &warn, DefaultMetricInterval, "OTEL_METRIC_EXPORT_INTERVAL")
	switch t := strings.ToLower(get("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE")); t {
	case "", "cumulative":
	case "delta", "lowmemory": // both make a synchronous histogram delta
		cfg.delta = true
	default:
		warn = append(warn, fmt.Sprintf("telemetry: OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE %q is not supported; cumulative holds", t))
	}
	cfg.resource, w = parseList(get("OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES", true)
	warn = append(warn, w...)
	if name := get("OTEL_SERVICE_NAME"); name != "" {
		cfg.resource["service.name"] = name
	}
	capture, _ := strconv.ParseBool(get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"))
	cfg.content = capture && s.CaptureContent
	cfg.shutdown = s.ShutdownTimeout
	if cfg.shutdown <= 0 {
		cfg.shutdown = DefaultShutdownTimeout
	}
	cfg.modelHeader = first(s.ModelTraceparent, PropagateLoopback)
	return cfg, true, unique(warn)
}

// resolveSignal resolves one signal's exporter: sig is "TRACES" or
// "METRICS", path its OTLP/HTTP path. on says whether the signal is
// exported.
func resolveSignal(get func(string) string, s Settings, sig, path string) (c signal, on bool, warn []string) {
	v := func(name string) string { // OTEL_EXPORTER_OTLP_{sig}_name, else OTEL_EXPORTER_OTLP_name
		return first(get("OTEL_EXPORTER_OTLP_"+sig+"_"+name), get("OTEL_EXPORTER_OTLP_"+name))
	}
	what := strings.ToLower(sig)
	on = s.Enabled || get("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || get("OTEL_EXPORTER_OTLP_"+sig+"_ENDPOINT") != ""
	if exp := get("OTEL_" + sig + "_EXPORTER"); exp != "" {
		on, warn = exporterChoice("OTEL_"+sig+"_EXPORTER", exp, on)
	}
	if !on {
		return c, false, warn
	}
	if proto := first(v("PROTOCOL"), "http/protobuf"); proto != "http/protobuf" {
		return c, false, append(warn, fmt.Sprintf("telemetry: OTLP protocol %q is not supported (odek exports http/protobuf); %s are not exported", proto, what))
	}
	c.endpoint, warn = endpoint(get, sig, path, s.Endpoint, warn)
	if c.endpoint == "" {
		return c, false, warn
	}
	var w []string
	c.headers, w = parseList(v("HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS", false)
	warn = append(warn, w...)
	switch comp := v("COMPRESSION"); comp {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		warn = append(warn, fmt.Sprintf("telemetry: OTLP compression %q is not supported; sent uncompressed", comp))
	}
	c.exportTimeout = millis(get, &warn, DefaultExportTimeout, "OTEL_EXPORTER_OTLP_"+sig+"_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")
	return c, true, warn
}

// exporterChoice reads OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER (name):
// "none" turns the signal off, "otlp" on; odek has no other exporter.
func exporterChoice(name, v string, on bool) (bool, []string) {
	var warn []string
	for _, e := range strings.Split(v, ",") {
		switch e = strings.TrimSpace(e); e {
		case "none":
			return false, nil
		case "otlp":
			on = true
		default:
			warn = append(warn, fmt.Sprintf("telemetry: %s %q is not supported (odek has otlp and none); ignored", name, e))
		}
	}
	return on, warn
}

// endpoint is a signal's URL: the signal's variable as given, else the
// base variable's, the setting's or the default, with path.
func endpoint(get func(string) string, sig, path, setting string, warn []string) (string, []string) {
	name := "OTEL_EXPORTER_OTLP_" + sig + "_ENDPOINT"
	raw, full := get(name), true
	if raw == "" {
		name, raw, full = "OTEL_EXPORTER_OTLP_ENDPOINT", get("OTEL_EXPORTER_OTLP_ENDPOINT"), false
	}
	if raw == "" {
		name, raw = "telemetry.endpoint", first(setting, DefaultEndpoint)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", append(warn, fmt.Sprintf("telemetry: %s is not an http(s) URL; %s are not exported", name, strings.ToLower(sig)))
	}
	if !full {
		u.Path = strings.TrimRight(u.Path, "/") + path
	}
	return u.String(), warn
}

// unique is warn without repeats, in order: a malformed variable both
// signals read is one warning.
func unique(warn []string) []string {
	var out []string
	for _, w := range warn {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// parseList parses the W3C-baggage-like "k=v,k2=v2" lists of
// OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES (values
// percent-decoded). A warning names the variable, never a value: a header
// may hold a key.
func parseList(v, name string, keepEmpty bool) (map[string]string, []string) {
	out := map[string]string{}
	if v == "" {
		if keepEmpty {
			return out, nil
		}
		return nil, nil
	}
	var warn []string
	for i, item := range strings.Split(v, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		k, val, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		dec, err := url.PathUnescape(strings.TrimSpace(val))
		if !ok || k == "" || err != nil {
			warn = append(warn, fmt.Sprintf("telemetry: %s entry %d is not key=value; ignored", name, i+1))
			continue
		}
		out[k] = dec
	}
	return out, warn
}

// millis reads the first set variable as milliseconds.
func millis(get func(string) string, warn *[]string, def time.Duration, names ...string) time.Duration {
	for _, n := range names {
		if v := get(n); v != "" {
			ms, err := strconv.ParseInt(v, 10, 64)
			if err != nil || ms <= 0 {
				*warn = append(*warn, fmt.Sprintf("telemetry: %s=%q is not a positive number of milliseconds; the default holds", n, v))
				return def
			}
			return time.Duration(ms) * time.Millisecond
		}
	}
	return def
}

// count reads a positive integer variable.
func count(get func(string) string, warn *[]string, def int, name string) int {
	v := get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		*warn = append(*warn, fmt.Sprintf("telemetry: %s=%q is not a positive integer; the default holds", name, v))
		return def
	}
	return n
}

// first is the first non-empty string.
func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
