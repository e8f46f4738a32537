package telemetry

import (
	"strings"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		env      map[string]string
		settings Settings
		on       bool
		endpoint string
		warn     string
	}{
		{name: "nothing configured", on: false},
		{name: "base endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://col:4318/"}, on: true, endpoint: "http://col:4318/v1/traces"},
		{name: "signal endpoint as given", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://col/x", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://other"}, on: true, endpoint: "https://col/x"},
		{name: "setting alone", settings: Settings{Enabled: true}, on: true, endpoint: "http://localhost:4318/v1/traces"},
		{name: "setting's endpoint", settings: Settings{Enabled: true, Endpoint: "http://col:9"}, on: true, endpoint: "http://col:9/v1/traces"},
		{name: "variable beats setting", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env"}, settings: Settings{Endpoint: "http://set"}, on: true, endpoint: "http://env/v1/traces"},
		{name: "exporter otlp", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true, endpoint: "http://localhost:4318/v1/traces"},
		{name: "exporter none wins", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://col"}, settings: Settings{Enabled: true}, on: false},
		{name: "sdk disabled wins", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://col"}, on: false},
		{name: "grpc refused", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://col:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: false, warn: `OTLP protocol "grpc" is not supported`},
		{name: "bad endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "col:4318"}, on: false, warn: "OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s) URL"},
		{name: "console exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, on: false, warn: `OTEL_TRACES_EXPORTER "console" is not supported`},
		{name: "bad header, value never quoted", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=s3cret,broken"}, on: true, endpoint: "http://c/v1/traces", warn: "OTEL_EXPORTER_OTLP_HEADERS entry 2 is not key=value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, on, warn := resolve(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }, tc.settings)
			if on != tc.on || cfg.endpoint != tc.endpoint {
				t.Errorf("on %v endpoint %q, want %v %q", on, cfg.endpoint, tc.on, tc.endpoint)
			}
			joined := strings.Join(warn, "\n")
			if (tc.warn == "") != (joined == "") || !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q, want %q", joined, tc.warn)
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
		tr := &Tracer{cfg: config{modelHeader: first(tc.setting, PropagateLoopback)}}
		if got := tr.ModelHeaders(tc.url); got != tc.want {
			t.Errorf("%q %s: %v, want %v", tc.setting, tc.url, got, tc.want)
		}
	}
	var off *Tracer
	if off.ModelHeaders("http://127.0.0.1") {
		t.Error("a nil tracer sends headers")
	}
}
