package telemetry

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// The metrics of the semantic conventions odek records (docs/TELEMETRY.md).
const (
	MetricTokenUsage        = "gen_ai.client.token.usage"
	MetricOperationDuration = "gen_ai.client.operation.duration"
	MetricMCPDuration       = "mcp.client.operation.duration"
	AttrTokenType           = "gen_ai.token.type"
)

// instrument is one histogram: the conventions' name, unit and the
// explicit bucket boundaries they advise.
type instrument struct {
	name, desc, unit string
	bounds           []float64
}

// The instruments, indexed by metricID.
type metricID uint8

const (
	tokenUsage metricID = iota
	operationDuration
	mcpDuration
)

var instruments = [...]instrument{
	tokenUsage: {MetricTokenUsage, "Number of input and output tokens used.", "{token}",
		[]float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}},
	operationDuration: {MetricOperationDuration, "GenAI operation duration.", "s",
		[]float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}},
	mcpDuration: {MetricMCPDuration, "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.", "s",
		[]float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}},
}

// series is one histogram's attribute set: a comparable key, so that a
// point already seen is found without allocating. Empty fields are
// attributes not set.
type series struct {
	metric                         metricID
	op, provider, model, respModel string
	addr                           string
	port                           int
	tokenType, errType             string
	mcpMethod, tool, protocol      string
	transport, rpcStatus           string
}

// attrs are the series' attributes, in the conventions' names.
func (k series) attrs() []attribute.KeyValue {
	var out []attribute.KeyValue
	add := func(name, v string) {
		if v != "" {
			out = append(out, attribute.String(name, v))
		}
	}
	add(AttrMCPMethod, k.mcpMethod)
	add(AttrOperation, k.op)
	add(AttrProvider, k.provider)
	add(AttrTokenType, k.tokenType)
	add(AttrRequestModel, k.model)
	add(AttrResponseModel, k.respModel)
	add(AttrToolName, k.tool)
	add(AttrMCPProtocol, k.protocol)
	add(AttrNetworkTransport, k.transport)
	add(AttrServerAddress, k.addr)
	if k.port > 0 {
		out = append(out, attribute.Int(AttrServerPort, k.port))
	}
	add(AttrRPCStatus, k.rpcStatus)
	add(AttrErrorType, k.errType)
	return out
}

// histogram is one series' explicit-bucket histogram: counts[i] holds
// the values in (bounds[i-1], bounds[i]], the last the values above
// every bound, as the OpenTelemetry metrics SDK aggregates.
type histogram struct {
	count    uint64
	sum      float64
	min, max float64
	counts   []uint64
}

func (h *histogram) add(bounds []float64, v float64) {
	i, _ := slices.BinarySearch(bounds, v) // the first bound >= v
	h.counts[i]++
	if h.count == 0 || v < h.min {
		h.min = v
	}
	if h.count == 0 || v > h.max {
		h.max = v
	}
	h.count++
	h.sum += v
}

// meter aggregates a run's measurements and exports them: at the end of
// the run, and every interval while it lasts. odek aggregates its few
// histograms itself instead of linking the OpenTelemetry metric SDK
// (docs/TELEMETRY.md has the cost).
type meter struct {
	exp      *exporter
	scope    string // the instrumentation scope's version
	delta    bool   // delta temporality: each export holds what came since the last one
	interval time.Duration

	mu     sync.Mutex
	series map[series]*histogram
	order  []series // first recorded first, for a stable export
	start  time.Time

	// sending is held from a collect to the end of its export, so exports
	// reach the collector in order: a later cumulative point never
	// arrives before an earlier one.
	sending    chan struct{}
	stop, done chan struct{}
	stopOnce   sync.Once
}

func newMeter(exp *exporter, version string, delta bool, interval time.Duration) *meter {
	m := &meter{exp: exp, scope: version, delta: delta, interval: interval,
		series: map[series]*histogram{}, start: time.Now(),
		sending: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go m.periodic()
	return m
}

// record adds one measurement to its series.
func (m *meter) record(k series, v float64) {
	bounds := instruments[k.metric].bounds
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.series[k]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(bounds)+1)}
		m.series[k] = h
		m.order = append(m.order, k)
	}
	h.add(bounds, v)
}

// periodic exports every interval until stopped: a long run's metrics
// reach the collector while it lasts.
func (m *meter) periodic() {
	defer close(m.done)
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.export(context.Background())
		}
	}
}

// export sends what has been recorded (cumulative: everything since the
// start; delta: since the last export), after the export under way; it
// gives up when ctx ends first. Nothing recorded sends nothing.
func (m *meter) export(ctx context.Context) {
	select {
	case m.sending <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-m.sending }()
	if body := m.collect(time.Now()); body != nil {
		m.exp.deliver(ctx, body)
	}
}

// shutdown stops the periodic export and makes the last one, within
// ctx. A second call exports again (cumulative: the same points).
func (m *meter) shutdown(ctx context.Context) {
	m.stopOnce.Do(func() { close(m.stop) })
	m.export(ctx)
}

// collect encodes the points as an OTLP request, nil when there are none.
func (m *meter) collect(now time.Time) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	var byMetric [len(instruments)][]point
	n := 0
	for _, k := range m.order {
		h := m.series[k]
		if h.count == 0 {
			continue
		}
		p := point{attrs: k.attrs(), h: *h}
		p.h.counts = slices.Clone(h.counts)
		byMetric[k.metric] = append(byMetric[k.metric], p)
		n++
	}
	if n == 0 {
		return nil
	}
	start := m.start
	if m.delta {
		clear(m.series)
		m.order, m.start = m.order[:0], now
	}
	var ms []metricData
	for id, pts := range byMetric {
		if len(pts) > 0 {
			ms = append(ms, metricData{inst: &instruments[id], points: pts})
		}
	}
	return encodeMetrics(m.exp.res, m.exp.schema, m.scope, ms, start, now, m.delta)
}
