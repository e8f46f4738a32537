// Package telemetry is odek's OpenTelemetry tracing and metrics
// (docs/TELEMETRY.md): Setup builds a tracer from the standard OTEL_*
// variables and the operator's telemetry.* settings, and the *Tracer it
// returns starts the spans of the GenAI semantic conventions (invoke_agent,
// chat, execute_tool) and of MCP's, records the conventions' duration and
// token-usage histograms as those spans end, and carries the trace context across the
// process boundaries a run has: the environment of a sub-agent or a shell
// command, an MCP request's params._meta and HTTP headers, a model
// request's traceparent header.
//
// Off is free: Setup returns a nil *Tracer unless tracing is configured,
// every method of a nil *Tracer (and of the nil spans it returns) does
// nothing and allocates nothing, and no exporter or goroutine exists.
//
// Spans leave through the SDK's batch span processor (a bounded queue,
// exported in the background) and odek's own OTLP/HTTP protobuf exporter
// (exporter.go, otlp.go): the official otlptracehttp exporter links gRPC
// and the generated OTLP protobuf packages, whose package initializers
// would cost every odek process milliseconds and a quarter of a megabyte
// with tracing off (docs/TELEMETRY.md has the figures).
//
// Metrics are aggregated here (metrics.go: a map of explicit-bucket
// histograms, cumulative unless delta is asked for) and encoded the same
// way (otlpmetrics.go), exported every OTEL_METRIC_EXPORT_INTERVAL and once
// at the end of the run: the OpenTelemetry metric SDK would add 0.7 MB to
// every odek binary for three histograms.
package telemetry
