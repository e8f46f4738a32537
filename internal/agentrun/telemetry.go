package agentrun

import (
	"context"
	"net/url"
	"strings"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/telemetry"
)

// startTelemetry sets up the run's tracing from the OTEL_* variables and
// the telemetry.* settings, and prints its warnings. Off (the default),
// r.tel stays nil and nothing is started.
func (r *Run) startTelemetry(ios *iostreams.IOStreams) {
	cfg := r.conf.cfg
	t := cfg.Telemetry
	var warns []string
	r.tel, warns = telemetry.Setup(telemetry.Options{
		LookupEnv: ios.LookupEnv,
		Settings: telemetry.Settings{Enabled: t.Enabled, Endpoint: t.Endpoint, CaptureContent: t.CaptureContent,
			ShutdownTimeout: t.ShutdownTimeout, ModelTraceparent: t.ModelTraceparent},
		Version: r.o.Version, Provider: genAIProvider(cfg.BaseURL), Redact: redact.String,
	})
	runview.PrintWarnings(ios, warns)
}

// startAgentSpan starts the run's invoke_agent span on ctx (under
// TRACEPARENT's, for a sub-agent its parent's execute_tool delegate_tasks)
// and stamps its ids on the run's events.
func (r *Run) startAgentSpan(ctx context.Context) context.Context {
	if r.tel == nil {
		return ctx
	}
	info := telemetry.AgentInfo{Model: r.conf.cfg.Model, RunID: r.conf.runID}
	if r.o.Resume != nil {
		info.SessionID = r.o.Resume.ID
	}
	ctx, r.span = r.tel.StartAgent(ctx, info)
	r.sinks.emitter.SetTrace(r.span.IDs())
	return ctx
}

// endAgentSpan ends the run's span with how the run ended (once; later
// calls do nothing): the report's termination reason, the run's tokens.
// sig is the signal context, which tells an interrupt apart as the
// report does.
func (r *Run) endAgentSpan(sig context.Context, res *loop.Result, err error) {
	if r == nil || r.span == nil {
		return
	}
	_, reason, _ := runview.Outcome(sig, res, err)
	ar := telemetry.AgentResult{Termination: reason, Err: err}
	if res != nil {
		u := res.Usage
		ar.InputTokens, ar.OutputTokens, ar.CacheReadTokens, ar.CacheMade =
			u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens
	}
	r.span.EndAgent(ar)
	r.span = nil
}

// stopTelemetry flushes the queued spans, bounded by
// telemetry.shutdown_timeout_seconds whatever ctx says, and prints what was
// lost. The run's result and exit code do not change.
func (r *Run) stopTelemetry(ctx context.Context) {
	if r.tel == nil {
		return
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r.endAgentSpan(ctx, nil, context.Canceled) // a run that never reached its end
	runview.PrintWarnings(r.o.IO, r.tel.Shutdown(context.WithoutCancel(ctx)))
	r.tel = nil
}

// tracedAsker puts each wait for the operator's answer (the terminal's,
// or an ACP client's) in an await_approval span under its execute_tool.
type tracedAsker struct {
	a   policy.Asker
	tel *telemetry.Tracer
}

func (t tracedAsker) Ask(ctx context.Context, q policy.Question) (policy.Answer, error) {
	ctx, span := t.tel.StartApproval(ctx, q.Tool, q.Class.String())
	a, err := t.a.Ask(ctx, q)
	span.EndApproval(answerName(a), err)
	return a, err
}

// answerName is odek.approval.answer's value for a.
func answerName(a policy.Answer) string {
	switch a {
	case policy.AnswerOnce:
		return "once"
	case policy.AnswerTrustClass:
		return "trust"
	}
	return "deny"
}

// genAIProvider is gen_ai.provider.name for a model endpoint: the
// well-known providers by their API host, else "" (telemetry's default,
// "openai": odek speaks OpenAI's API).
func genAIProvider(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	for _, p := range providerHosts {
		if host == p.host || strings.HasSuffix(host, "."+p.host) {
			return p.name
		}
	}
	return ""
}

// providerHosts are the semantic conventions' provider names of the
// OpenAI-compatible endpoints odek's docs name.
var providerHosts = []struct{ host, name string }{
	{"openai.azure.com", "azure.ai.openai"},
	{"openai.com", "openai"},
	{"anthropic.com", "anthropic"},
	{"generativelanguage.googleapis.com", "gcp.gemini"},
	{"api.deepseek.com", "deepseek"},
	{"api.groq.com", "groq"},
	{"api.mistral.ai", "mistral_ai"},
	{"api.x.ai", "x_ai"},
	{"api.perplexity.ai", "perplexity"},
}
