package telemetry

import (
	"strings"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	const col = "http://col:4318"
	for _, tc := range []struct {
		name            string
		env             map[string]string
		settings        Settings
		traces, metrics string // the signals' URLs, "" = off
		warn            string
	}{
		{name: "nothing configured"},
		{name: "base endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col + "/"}, traces: col + "/v1/traces", metrics: col + "/v1/metrics"},
		{name: "signal endpoint as given", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://col/x", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://other"},
			traces: "https://col/x", metrics: "http://other/v1/metrics"},
		{name: "metrics endpoint alone", env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "https://col/m"}, metrics: "https://col/m"},
		{name: "setting alone", settings: Settings{Enabled: true}, traces: "http://localhost:4318/v1/traces", metrics: "http://localhost:4318/v1/metrics"},
		{name: "setting's endpoint", settings: Settings{Enabled: true, Endpoint: "http://col:9"}, traces: "http://col:9/v1/traces", metrics: "http://col:9/v1/metrics"},
		{name: "variable beats setting", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env"}, settings: Settings{Endpoint: "http://set"},
			traces: "http://env/v1/traces", metrics: "http://env/v1/metrics"},
		{name: "traces exporter otlp", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, traces: "http://localhost:4318/v1/traces"},
		{name: "metrics exporter otlp", env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp"}, metrics: "http://localhost:4318/v1/metrics"},
		{name: "traces exporter none", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": col}, settings: Settings{Enabled: true},
			metrics: col + "/v1/metrics"},
		{name: "metrics exporter none", env: map[string]string{"OTEL_METRICS_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": col}, traces: col + "/v1/traces"},
		{name: "both none", env: map[string]string{"OTEL_METRICS_EXPORTER": "none", "OTEL_TRACES_EXPORTER": "none"}, settings: Settings{Enabled: true}},
		{name: "sdk disabled wins", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": col}},
		{name: "grpc refused", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://col:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, warn: `OTLP protocol "grpc" is not supported`},
		{name: "grpc for metrics only", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "grpc"},
			traces: col + "/v1/traces", warn: `OTLP protocol "grpc" is not supported (odek exports http/protobuf); metrics are not exported`},
		{name: "bad endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "col:4318"}, warn: "OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s) URL"},
		{name: "console exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, warn: `OTEL_TRACES_EXPORTER "console" is not supported`},
		{name: "prometheus exporter", env: map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}, warn: `OTEL_METRICS_EXPORTER "prometheus" is not supported`},
		{name: "bad header, value never quoted, warned once", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=s3cret,broken"},
			traces: "http://c/v1/traces", metrics: "http://c/v1/metrics", warn: "OTEL_EXPORTER_OTLP_HEADERS entry 2 is not key=value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, on, warn := resolve(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }, tc.settings)
			got := func(on bool, url string) string {
				if !on {
					return ""
				}
				return url
			}
			if gt, gm := got(cfg.traces, cfg.endpoint), got(cfg.metrics, cfg.metric.endpoint); gt != tc.traces || gm != tc.metrics || on != (gt != "" || gm != "") {
				t.Errorf("on %v traces %q metrics %q, want %q %q", on, gt, gm, tc.traces, tc.metrics)
			}
			joined := strings.Join(warn, "\n")
			if (tc.warn == "") != (joined == "") || !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q, want %q", joined, tc.warn)
			}
			if strings.Count(joined, "entry 2") > 1 {
				t.Errorf("a warning repeats: %q", joined)
			}
			if strings.Contains(joined, "s3cret") {
				t.Errorf("a warning quotes a header value: %q", joined)
			}
		})
	}
}

func TestResolveDetails(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20x, x-team = ci ",
		"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TIMEOUT": "1500", "OTEL_BSP_MAX_QUEUE_SIZE": "10",
		"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=ci,service.name=x", "OTEL_SERVICE_NAME": "job",
		"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
	}
	cfg, on, warn := resolve(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, Settings{ModelTraceparent: PropagateAlways})
	if !on || len(warn) > 0 {
		t.Fatalf("on %v warn %v", on, warn)
	}
	if cfg.headers["Authorization"] != "Bearer x" || cfg.headers["x-team"] != "ci" || !cfg.gzip {
		t.Errorf("headers %v gzip %v", cfg.headers, cfg.gzip)
	}
	if cfg.exportTimeout != 1500*time.Millisecond || cfg.queue != 10 || cfg.batch != 10 || cfg.shutdown != DefaultShutdownTimeout {
		t.Errorf("timeout %v queue %d batch %d shutdown %v", cfg.exportTimeout, cfg.queue, cfg.batch, cfg.shutdown)
	}
	if cfg.metric.headers["x-team"] != "ci" || !cfg.metric.gzip || cfg.metric.exportTimeout != 1500*time.Millisecond || cfg.delta || cfg.interval != DefaultMetricInterval {
		t.Errorf("metrics: headers %v gzip %v timeout %v delta %v interval %v", cfg.metric.headers, cfg.metric.gzip, cfg.metric.exportTimeout, cfg.delta, cfg.interval)
	}
	if cfg.resource["service.name"] != "job" || cfg.resource["deployment.environment"] != "ci" {
		t.Errorf("resource %v", cfg.resource)
	}
	if cfg.content {
		t.Error("content captured on the variable alone: the setting must say so too")
	}
	if cfg.modelHeader != PropagateAlways {
		t.Errorf("model header %q", cfg.modelHeader)
	}
}

func TestModelHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		setting, url string
		want         bool
	}{
		{"", "http://127.0.0.1:11434/v1", true},
		{"", "http://localhost:8080/v1", true},
		{"", "http://[::1]:8080/v1", true},
		{"", "https://api.openai.com/v1", false},
		{PropagateAlways, "https://api.openai.com/v1", true},
		{PropagateNever, "http://127.0.0.1/v1", false},
	} {
		tr := &Tracer{cfg: config{traces: true, modelHeader: first(tc.setting, PropagateLoopback)}}
		if got := tr.ModelHeaders(tc.url); got != tc.want {
			t.Errorf("%q %s: %v, want %v", tc.setting, tc.url, got, tc.want)
		}
	}
	var off *Tracer
	if off.ModelHeaders("http://127.0.0.1") {
		t.Error("a nil tracer sends headers")
	}
}
