package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Attribute names of the GenAI and MCP semantic conventions (development
// status; docs/TELEMETRY.md names the version), and odek's own.
const (
	AttrOperation        = "gen_ai.operation.name"
	AttrProvider         = "gen_ai.provider.name"
	AttrAgentName        = "gen_ai.agent.name"
	AttrConversation     = "gen_ai.conversation.id"
	AttrRequestModel     = "gen_ai.request.model"
	AttrMaxTokens        = "gen_ai.request.max_tokens"
	AttrResponseModel    = "gen_ai.response.model"
	AttrFinishReasons    = "gen_ai.response.finish_reasons"
	AttrInputTokens      = "gen_ai.usage.input_tokens"
	AttrOutputTokens     = "gen_ai.usage.output_tokens"
	AttrCacheRead        = "gen_ai.usage.cache_read.input_tokens"
	AttrCacheCreation    = "gen_ai.usage.cache_creation.input_tokens"
	AttrInputMessages    = "gen_ai.input.messages"
	AttrOutputMessages   = "gen_ai.output.messages"
	AttrToolName         = "gen_ai.tool.name"
	AttrToolCallID       = "gen_ai.tool.call.id"
	AttrToolType         = "gen_ai.tool.type"
	AttrToolArguments    = "gen_ai.tool.call.arguments"
	AttrToolResult       = "gen_ai.tool.call.result"
	AttrErrorType        = "error.type"
	AttrServerAddress    = "server.address"
	AttrServerPort       = "server.port"
	AttrMCPMethod        = "mcp.method.name"
	AttrMCPProtocol      = "mcp.protocol.version"
	AttrMCPSession       = "mcp.session.id"
	AttrJSONRPCID        = "jsonrpc.request.id"
	AttrRPCStatus        = "rpc.response.status_code"
	AttrNetworkTransport = "network.transport"
	AttrRunID            = "odek.run.id"
	AttrTermination      = "odek.termination"
	AttrAttempt          = "odek.llm.attempt"
	AttrMCPServer        = "odek.mcp.server"
)

// The gen_ai.operation.name values odek uses.
const (
	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
)

// maxContent caps one captured content attribute.
const maxContent = 32 << 10

// Span is one of odek's spans; nil (tracing off) does nothing. With
// metrics on it also times the operation for its metric.
type Span struct {
	s     trace.Span
	t     *Tracer
	start time.Time // when metrics are on: the operation's start
	key   series    // when metrics are on: the duration metric's series
}

// AgentInfo describes a run for its invoke_agent span.
type AgentInfo struct {
	Model string
	RunID string
	// SessionID is gen_ai.conversation.id ("" = the run has no session).
	SessionID string
}

// StartAgent starts the run's invoke_agent odek span, under the span on
// ctx or else TRACEPARENT's. Everything the run does happens under it.
func (t *Tracer) StartAgent(ctx context.Context, a AgentInfo) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrOperation, OpInvokeAgent), attribute.String(AttrProvider, t.provider),
		attribute.String(AttrAgentName, "odek"), attribute.String(AttrRequestModel, a.Model),
		attribute.String(AttrRunID, a.RunID),
	}
	if a.SessionID != "" {
		attrs = append(attrs, attribute.String(AttrConversation, a.SessionID))
	}
	ctx, s := t.tracer.Start(t.parented(ctx), OpInvokeAgent+" odek",
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, t.span(s, series{metric: operationDuration, op: OpInvokeAgent, provider: t.provider, model: a.Model})
}

// span wraps s; with metrics on it starts timing the series k.
func (t *Tracer) span(s trace.Span, k series) *Span {
	sp := &Span{s: s, t: t}
	if t.meter != nil {
		sp.start, sp.key = time.Now(), k
	}
	return sp
}

// measure records the span's duration in its series, with error.type
// when err is set; it does nothing with metrics off.
func (s *Span) measure(err error) {
	if s.t.meter == nil {
		return
	}
	if err != nil {
		s.key.errType = ErrorType(err)
	}
	s.t.meter.record(s.key, time.Since(s.start).Seconds())
}

// SetConversationID sets gen_ai.conversation.id once the run's session is
// known (run --session creates it after the run's span starts).
func (s *Span) SetConversationID(id string) {
	if s == nil || id == "" {
		return
	}
	s.s.SetAttributes(attribute.String(AttrConversation, id))
}

// AgentResult is how a run ended, for its span.
type AgentResult struct {
	// Termination is odek's termination reason (the report's); "" = none.
	Termination                                           string
	InputTokens, OutputTokens, CacheReadTokens, CacheMade int64
	Err                                                   error
}

// EndAgent ends the invoke_agent span with the run's outcome.
func (s *Span) EndAgent(r AgentResult) {
	if s == nil {
		return
	}
	if r.Termination != "" {
		s.s.SetAttributes(attribute.String(AttrTermination, r.Termination))
	}
	s.usage(r.InputTokens, r.OutputTokens, r.CacheReadTokens, r.CacheMade)
	s.measure(r.Err)
	s.end(r.Err)
}

// ChatInfo describes one model request (one attempt).
type ChatInfo struct {
	Model     string
	Endpoint  string // the URL: server.address and server.port
	MaxTokens int
	Attempt   int // 1 for the first, 2 for the first retry, ...
	// Input is the request's messages, called only when content is
	// captured.
	Input func() []Message
}

// Message is one message of gen_ai.input.messages or
// gen_ai.output.messages.
type Message struct {
	Role         string `json:"role"`
	Parts        []Part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// Part is one part of a Message: text, a tool call, a tool call's
// response.
type Part struct {
	Type      string          `json:"type"` // "text", "tool_call", "tool_call_response"
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  string          `json:"response,omitempty"`
}

// StartChat starts a chat {model} span (kind client) for one attempt.
func (t *Tracer) StartChat(ctx context.Context, c ChatInfo) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrOperation, OpChat), attribute.String(AttrProvider, t.provider),
		attribute.String(AttrRequestModel, c.Model), attribute.Int(AttrAttempt, c.Attempt),
	}
	if c.MaxTokens > 0 {
		attrs = append(attrs, attribute.Int(AttrMaxTokens, c.MaxTokens))
	}
	attrs = appendServer(attrs, c.Endpoint)
	if t.cfg.content && c.Input != nil {
		attrs = append(attrs, attribute.String(AttrInputMessages, t.messages(c.Input())))
	}
	ctx, s := t.tracer.Start(ctx, OpChat+" "+c.Model,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	k := series{metric: operationDuration, op: OpChat, provider: t.provider, model: c.Model}
	if t.meter != nil {
		k.addr, k.port = server(c.Endpoint)
	}
	return ctx, t.span(s, k)
}

// ChatResult is what one attempt got.
type ChatResult struct {
	ResponseModel string
	FinishReason  string
	// Usage: input is the whole prompt (cache reads and writes
	// included), as the conventions count it.
	InputTokens, OutputTokens, CacheReadTokens, CacheMade int64
	UsagePresent                                          bool
	// Output is the reply, called only when content is captured.
	Output func() Message
}

// EndChat ends a chat span: the reply's attributes, or err.
func (s *Span) EndChat(r ChatResult, err error) {
	if s == nil {
		return
	}
	if err == nil {
		if r.ResponseModel != "" {
			s.s.SetAttributes(attribute.String(AttrResponseModel, r.ResponseModel))
		}
		if r.FinishReason != "" {
			s.s.SetAttributes(attribute.StringSlice(AttrFinishReasons, []string{r.FinishReason}))
		}
		if r.UsagePresent {
			s.usage(r.InputTokens, r.OutputTokens, r.CacheReadTokens, r.CacheMade)
		}
		if s.t.cfg.content && r.Output != nil {
			s.s.SetAttributes(attribute.String(AttrOutputMessages, s.t.messages([]Message{r.Output()})))
		}
	}
	s.key.respModel = r.ResponseModel
	s.measure(err)
	if err == nil && r.UsagePresent && s.t.meter != nil {
		k := s.key
		k.metric, k.tokenType = tokenUsage, "input"
		s.t.meter.record(k, float64(r.InputTokens+r.CacheReadTokens+r.CacheMade))
		k.tokenType = "output"
		s.t.meter.record(k, float64(r.OutputTokens))
	}
	s.end(err)
}

// ToolInfo describes one tool call.
type ToolInfo struct {
	Name   string
	CallID string // odek's call id (the tool message's tool_call_id)
	// Type is gen_ai.tool.type: "function" for odek's own tools,
	// "extension" for an MCP server's.
	Type string
	Args string // captured only with content on, redacted
}

// StartTool starts an execute_tool {tool} span.
func (t *Tracer) StartTool(ctx context.Context, c ToolInfo) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrOperation, OpExecuteTool), attribute.String(AttrToolName, c.Name),
		attribute.String(AttrToolCallID, c.CallID), attribute.String(AttrToolType, first(c.Type, "function")),
	}
	if t.cfg.content {
		attrs = append(attrs, attribute.String(AttrToolArguments, t.content(c.Args)))
	}
	ctx, s := t.tracer.Start(ctx, OpExecuteTool+" "+c.Name,
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, &Span{s: s, t: t}
}

// EndTool ends an execute_tool span with the result (captured only with
// content on) or the error.
func (s *Span) EndTool(result string, err error) {
	if s == nil {
		return
	}
	if err == nil && s.t.cfg.content {
		s.s.SetAttributes(attribute.String(AttrToolResult, s.t.content(result)))
	}
	s.end(err)
}

// MCPInfo describes one MCP request.
type MCPInfo struct {
	Method    string // mcp.method.name
	Target    string // the tool (tools/call) or prompt name; "" = none
	Server    string // the configured server name
	Transport string // "pipe" (stdio) or "tcp" (HTTP)
	URL       string // an HTTP server's URL: server.address and server.port
	Protocol  string // mcp.protocol.version, "" before it is known
	Session   string // mcp.session.id, "" = none
	RequestID int64
}

// StartMCP starts an MCP client span, "{method} {target}".
func (t *Tracer) StartMCP(ctx context.Context, m MCPInfo) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrMCPMethod, m.Method), attribute.String(AttrMCPServer, m.Server),
		attribute.String(AttrNetworkTransport, m.Transport),
		attribute.String(AttrJSONRPCID, strconv.FormatInt(m.RequestID, 10)),
	}
	if m.Protocol != "" {
		attrs = append(attrs, attribute.String(AttrMCPProtocol, m.Protocol))
	}
	if m.Session != "" {
		attrs = append(attrs, attribute.String(AttrMCPSession, m.Session))
	}
	name := m.Method
	if m.Target != "" {
		name += " " + m.Target
		if m.Method == "tools/call" {
			attrs = append(attrs, attribute.String(AttrToolName, m.Target), attribute.String(AttrOperation, OpExecuteTool))
		}
	}
	attrs = appendServer(attrs, m.URL)
	ctx, s := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	k := series{metric: mcpDuration, mcpMethod: m.Method, protocol: m.Protocol, transport: m.Transport}
	if m.Method == "tools/call" {
		k.op, k.tool = OpExecuteTool, m.Target
	}
	if t.meter != nil {
		k.addr, k.port = server(m.URL)
	}
	return ctx, t.span(s, k)
}

// EndMCP ends an MCP span; code is the JSON-RPC error code of an error
// answer (0 = none).
func (s *Span) EndMCP(code int64, err error) {
	if s == nil {
		return
	}
	if code != 0 {
		s.key.rpcStatus = strconv.FormatInt(code, 10)
		s.s.SetAttributes(attribute.String(AttrRPCStatus, s.key.rpcStatus))
	}
	s.measure(err)
	s.end(err)
}

// usage sets the token counts: input is the whole prompt.
func (s *Span) usage(in, out, cacheRead, cacheMade int64) {
	s.s.SetAttributes(attribute.Int64(AttrInputTokens, in+cacheRead+cacheMade), attribute.Int64(AttrOutputTokens, out))
	if cacheRead > 0 {
		s.s.SetAttributes(attribute.Int64(AttrCacheRead, cacheRead))
	}
	if cacheMade > 0 {
		s.s.SetAttributes(attribute.Int64(AttrCacheCreation, cacheMade))
	}
}

// end sets the error and ends the span. The status says error.type (the
// error_class); the message itself, which may quote a tool's output or a
// server's, goes only with content captured, redacted.
func (s *Span) end(err error) {
	if err != nil {
		class := ErrorType(err)
		s.s.SetAttributes(attribute.String(AttrErrorType, class))
		desc := class
		if s.t.cfg.content {
			desc = clip(s.t.redact(err.Error()), 512)
		}
		s.s.SetStatus(codes.Error, desc)
	}
	s.s.End()
}

// IDs are the span's trace and span ids in hex ("" for a nil span), for
// the event stream's trace_id and span_id.
func (s *Span) IDs() (traceID, spanID string) {
	if s == nil {
		return "", ""
	}
	sc := s.s.SpanContext()
	if !sc.IsValid() {
		return "", ""
	}
	return sc.TraceID().String(), sc.SpanID().String()
}

// ErrorType is error.type for err: its error_class (docs/EVENTS.md) when
// it has one, the context's when it ended, else "_OTHER".
func ErrorType(err error) string {
	var c interface{ ErrorClass() string }
	switch {
	case errors.As(err, &c) && c.ErrorClass() != "":
		return c.ErrorClass()
	case errors.Is(err, context.Canceled):
		return "context_canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	}
	return "_OTHER"
}

// appendServer adds server.address and server.port of rawURL.
func appendServer(attrs []attribute.KeyValue, rawURL string) []attribute.KeyValue {
	host, port := server(rawURL)
	if host == "" {
		return attrs
	}
	attrs = append(attrs, attribute.String(AttrServerAddress, host))
	if port > 0 {
		attrs = append(attrs, attribute.Int(AttrServerPort, port))
	}
	return attrs
}

// server is server.address and server.port of rawURL ("" and 0 when it
// names no host); the port is the scheme's when the URL has none.
func server(rawURL string) (string, int) {
	if rawURL == "" {
		return "", 0
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", 0
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, _ := strconv.Atoi(port)
	return u.Hostname(), p
}

// content is captured text, redacted and capped.
func (t *Tracer) content(s string) string {
	s = t.redact(s)
	if len(s) > maxContent {
		s = s[:maxContent] + "…[cut]"
	}
	return s
}

// messages is gen_ai.*.messages: the messages as JSON, every text
// redacted and capped.
func (t *Tracer) messages(ms []Message) string {
	for i := range ms {
		for j := range ms[i].Parts {
			p := &ms[i].Parts[j]
			p.Content, p.Response = t.contentIf(p.Content), t.contentIf(p.Response)
			if len(p.Arguments) > 0 {
				if red := t.content(string(p.Arguments)); json.Valid([]byte(red)) {
					p.Arguments = json.RawMessage(red)
				} else {
					p.Arguments, p.Content = nil, red
				}
			}
		}
	}
	b, err := json.Marshal(ms)
	if err != nil {
		return "[]"
	}
	return string(b)
}

func (t *Tracer) contentIf(s string) string {
	if s == "" {
		return ""
	}
	return t.content(s)
}
