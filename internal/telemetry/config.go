package telemetry

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Settings are the operator's telemetry.* settings (internal/config; a
// project file cannot set them: they would send data somewhere).
type Settings struct {
	// Enabled exports traces even when no OTEL_* variable asks for it (to
	// Endpoint, else the OTLP default http://localhost:4318).
	Enabled bool
	// Endpoint is the OTLP/HTTP base URL ("/v1/traces" is appended);
	// OTEL_EXPORTER_OTLP_ENDPOINT and …_TRACES_ENDPOINT beat it.
	Endpoint string
	// CaptureContent lets prompts, replies, tool arguments and results
	// into spans, redacted, when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
	// is true as well: both must say so.
	CaptureContent bool
	// ShutdownTimeout bounds the flush at the end of a run (0 = DefaultShutdownTimeout).
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
	tracesPath             = "/v1/traces"
)

// config is what Setup resolved from the environment and the settings.
type config struct {
	endpoint      string            // the full traces URL
	headers       map[string]string // OTEL_EXPORTER_OTLP_(TRACES_)HEADERS
	gzip          bool
	exportTimeout time.Duration
	shutdown      time.Duration
	queue, batch  int
	delay         time.Duration
	sampler       string
	samplerArg    string
	resource      map[string]string // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME
	content       bool
	modelHeader   string
}

// resolve reads the standard variables through lookup and the settings.
// on is false when nothing asks for traces, or something turns them off
// (OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none, an unsupported protocol).
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
	on = s.Enabled || get("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	if exp := get("OTEL_TRACES_EXPORTER"); exp != "" {
		on, warn = exporterChoice(exp, on)
	}
	if !on {
		return cfg, false, warn
	}
	proto := first(get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), get("OTEL_EXPORTER_OTLP_PROTOCOL"), "http/protobuf")
	if proto != "http/protobuf" {
		return cfg, false, append(warn, fmt.Sprintf("telemetry: OTLP protocol %q is not supported (odek exports http/protobuf); traces are not exported", proto))
	}
	cfg.endpoint, warn = endpoint(get, s.Endpoint, warn)
	if cfg.endpoint == "" {
		return cfg, false, warn
	}
	var w []string
	cfg.headers, w = parseList(first(get("OTEL_EXPORTER_OTLP_TRACES_HEADERS"), get("OTEL_EXPORTER_OTLP_HEADERS")), "OTEL_EXPORTER_OTLP_HEADERS", false)
	warn = append(warn, w...)
	switch c := first(get("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"), get("OTEL_EXPORTER_OTLP_COMPRESSION")); c {
	case "", "none":
	case "gzip":
		cfg.gzip = true
	default:
		warn = append(warn, fmt.Sprintf("telemetry: OTLP compression %q is not supported; sent uncompressed", c))
	}
	cfg.exportTimeout = millis(get, &warn, DefaultExportTimeout, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")
	cfg.delay = millis(get, &warn, DefaultScheduleDelay, "OTEL_BSP_SCHEDULE_DELAY")
	cfg.queue = count(get, &warn, DefaultQueueSize, "OTEL_BSP_MAX_QUEUE_SIZE")
	cfg.batch = min(count(get, &warn, DefaultBatchSize, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"), cfg.queue)
	cfg.sampler, cfg.samplerArg = get("OTEL_TRACES_SAMPLER"), get("OTEL_TRACES_SAMPLER_ARG")
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
	return cfg, true, warn
}

// exporterChoice reads OTEL_TRACES_EXPORTER: "none" turns traces off,
// "otlp" on; odek has no other exporter.
func exporterChoice(v string, on bool) (bool, []string) {
	var warn []string
	for _, e := range strings.Split(v, ",") {
		switch e = strings.TrimSpace(e); e {
		case "none":
			return false, nil
		case "otlp":
			on = true
		default:
			warn = append(warn, fmt.Sprintf("telemetry: OTEL_TRACES_EXPORTER %q is not supported (odek has otlp and none); ignored", e))
		}
	}
	return on, warn
}

// endpoint is the traces URL: the signal's variable as given, else the
// base variable's, the setting's or the default, with /v1/traces.
func endpoint(get func(string) string, setting string, warn []string) (string, []string) {
	name, raw, full := "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), true
	if raw == "" {
		name, raw, full = "OTEL_EXPORTER_OTLP_ENDPOINT", get("OTEL_EXPORTER_OTLP_ENDPOINT"), false
	}
	if raw == "" {
		name, raw = "telemetry.endpoint", first(setting, DefaultEndpoint)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", append(warn, fmt.Sprintf("telemetry: %s is not an http(s) URL; traces are not exported", name))
	}
	if !full {
		u.Path = strings.TrimRight(u.Path, "/") + tracesPath
	}
	return u.String(), warn
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
