package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/odek-run/odek/internal/telemetry"
)

// Options configures a Client. Zero values take the defaults noted.
type Options struct {
	BaseURL string // e.g. "https://api.openai.com/v1" (the default); "/chat/completions" or "/responses" is appended
	// WireAPI is the API spoken: WireChat ("" too) or WireResponses.
	WireAPI string
	// PromptCacheKey (the run's or the session's id; "" = none) is sent
	// so that a run's requests land on one prompt cache: as
	// prompt_cache_key on the Responses wire, and on the chat wire as user,
	// the field OpenAI routed its chat cache by before prompt_cache_key
	// and the one of the two go-openai's chat request has.
	PromptCacheKey string
	APIKey         string // sent as "Authorization: Bearer <key>" when not empty; never printed
	// KeySource names where APIKey came from ("ODEK_API_KEY", "ODEK_API_KEY
	// from ~/.odek/secrets.env", "global config api_key"), for
	// authentication error messages. Empty means no key is configured.
	KeySource string
	// Stream selects SSE streaming (with stream_options.include_usage). The
	// config default is true; false uses the plain JSON call.
	Stream bool
	// MaxAttempts bounds attempts per Complete call, retries included
	// (default DefaultMaxAttempts).
	MaxAttempts int
	// Timeouts bound each attempt (zero fields: the Default*Timeout values).
	Timeouts Timeouts
	// HTTPClient is copied, never modified; its Transport (default: a clone
	// of http.DefaultTransport whose TLS handshake the connect timeout
	// bounds) is wrapped to observe status, Retry-After and the body.
	HTTPClient *http.Client
	// Sleep waits between attempts; it must return early with ctx's error when
	// ctx is done (default: a timer raced against ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time // default time.Now
	Rand  func() float64   // in [0, 1), for jitter; default math/rand/v2
	// OnRetry, when set, is called before each wait with the number of the
	// attempt that failed, the wait, and that attempt's error.
	OnRetry func(attempt int, wait time.Duration, err error)
	// OnFallback, when set, is called once per field the endpoint refuses
	// (tools, reasoning_effort, response_format, and on the Responses wire
	// prompt_cache_key and reasoning items), before the request is
	// sent again without it; the field stays out for the client's life.
	OnFallback func(Fallback)
	// Telemetry, when set, puts each attempt in a chat span and, where
	// it allows the endpoint (Tracer.ModelHeaders), sends its traceparent;
	// nil = no tracing, no header.
	Telemetry *telemetry.Tracer
}

// Client calls an OpenAI-compatible chat-completions or Responses endpoint
// through go-openai. It is safe for concurrent use.
type Client struct {
	cfg         openai.ClientConfig // HTTPClient is set per attempt (apiFor)
	http        http.Client         // the caller's client, copied; Transport is the base
	endpoint    string              // for messages: the URL every request goes to
	stream      bool
	wire        string // WireChat or WireResponses
	cacheKey    string // prompt_cache_key (Responses wire), user (chat wire)
	items       itemCache
	keySource   string
	maxAttempts int
	timeouts    Timeouts
	sleep       func(ctx context.Context, d time.Duration) error
	now         func() time.Time
	rand        func() float64
	onRetry     func(attempt int, wait time.Duration, err error)
	onFallback  func(Fallback)
	dropped     dropped // fields the endpoint refused, left out from then on
	tel         *telemetry.Tracer
	traceparent bool // requests carry the attempt's traceparent header
}

// New returns a Client for o.
func New(o Options) *Client {
	cfg := openai.DefaultConfig(o.APIKey)
	if o.BaseURL != "" {
		cfg.BaseURL = o.BaseURL
	}
	var hc http.Client
	if o.HTTPClient != nil {
		hc = *o.HTTPClient
	}
	if hc.Transport == nil {
		hc.Transport = defaultTransport()
	}
	// go-openai fails a stream after 300 consecutive non-data lines. Proxies
	// send SSE comments as keep-alives while a slow model thinks, so that
	// limit would break long waits; the request timeout and the body cap
	// bound such a stream instead.
	cfg.EmptyMessagesLimit = 1 << 20

	wire, path := WireChat, "/chat/completions"
	if o.WireAPI == WireResponses {
		wire, path = WireResponses, "/responses"
	}
	c := &Client{
		cfg:         cfg,
		http:        hc,
		endpoint:    strings.TrimRight(cfg.BaseURL, "/") + path,
		stream:      o.Stream,
		wire:        wire,
		cacheKey:    o.PromptCacheKey,
		keySource:   o.KeySource,
		maxAttempts: o.MaxAttempts,
		timeouts:    o.Timeouts.withDefaults(),
		sleep:       o.Sleep,
		now:         o.Now,
		rand:        o.Rand,
		onRetry:     o.OnRetry,
		onFallback:  o.OnFallback,
		tel:         o.Telemetry,
	}
	c.traceparent = o.Telemetry.ModelHeaders(c.endpoint)
	if c.maxAttempts <= 0 {
		c.maxAttempts = DefaultMaxAttempts
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.rand == nil {
		c.rand = rand.Float64
	}
	return c
}

// defaultTransport is http.DefaultTransport without its own dial and TLS
// handshake timeouts: the connect timeout covers both, with its own message.
func defaultTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 0
	return t
}

// apiFor is go-openai's client for one attempt: its HTTP client is the
// caller's, with the transport wrapped by an observer bound to ex, so the
// attempt's exchange is passed explicitly and concurrent calls never mix.
// Building it costs a few small allocations, nothing next to a request.
func (c *Client) apiFor(ex *exchange) *openai.Client {
	hc := c.http
	hc.Transport = &observer{base: c.http.Transport, ex: ex, traceparent: c.traceparent}
	cfg := c.cfg
	cfg.HTTPClient = &hc
	return openai.NewClientWithConfig(cfg)
}

// Endpoint is the URL requests go to.
func (c *Client) Endpoint() string { return c.endpoint }

// Complete sends req and returns the assembled response, retrying transient
// failures (see retry.go for the policy). A field the endpoint refuses
// (fallback.go) is dropped and the request sent again at once, outside the
// retry count. Errors are typed (errors.go); a cancelled ctx returns an
// error wrapping ctx.Err() and its cause.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	req = c.dropped.apply(req)
	p := c.prepare(req)
	defer p.done()
	failed := 0   // attempts that failed with a retryable error
	timedOut := 0 // of which an endpoint that went silent (retry.go)
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		resp, err := c.tracedAttempt(ctx, p, req, n)
		if err == nil {
			resp.Attempts, resp.Model = failed+1, req.Model
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		if field := c.refusedField(err, &req); field != "" {
			c.fallBack(field, req, err)
			req = without(req, field)
			p.done()
			p = c.prepare(req)
			continue
		}
		if !isRetryable(err) {
			return nil, err
		}
		failed++
		if stalled(err) {
			timedOut++
		}
		if failed >= c.maxAttempts || timedOut >= MaxTimedOutAttempts {
			return nil, &RetryError{Attempts: failed, Endpoint: c.endpoint, Err: err}
		}
		wait := c.waitFor(failed, err)
		if c.onRetry != nil {
			c.onRetry(failed, wait, err)
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			if ctx.Err() != nil {
				return nil, ctxError(ctx)
			}
			return nil, fmt.Errorf("llm: waiting to retry: %w", serr)
		}
	}
}

// prepared is a request built for the client's wire, once for every
// attempt: chat's, or the Responses wire's with the release that says it is
// no longer read (its items may then be reused in place). A value, passed
// by value, so that preparing allocates nothing of its own.
type prepared struct {
	chat    openai.ChatCompletionRequest
	resp    openai.CreateResponseRequest
	release func()
}

// prepare builds the wire's request for req.
func (c *Client) prepare(req Request) prepared {
	if c.wire == WireResponses {
		oreq, release := c.responsesRequest(req)
		return prepared{resp: oreq, release: release}
	}
	chat := toOpenAI(req, c.stream)
	if c.cacheKey != "" && !c.dropped.has(FieldUser) {
		chat.User = c.cacheKey
	}
	return prepared{chat: chat}
}

// done releases a prepared request.
func (p *prepared) done() {
	if p.release != nil {
		p.release()
		p.release = nil
	}
}

// Wire is the API the client speaks: WireChat or WireResponses.
func (c *Client) Wire() string { return c.wire }

// fallBack records that the endpoint refused field and reports it once.
func (c *Client) fallBack(field string, req Request, err error) {
	if !c.dropped.add(field) || c.onFallback == nil {
		return
	}
	var se *StatusError
	errors.As(err, &se)
	f := Fallback{Field: field, Model: req.Model, Status: se.Status, Message: se.Body}
	if field == FieldReasoningEffort {
		f.Value = req.ReasoningEffort
	}
	c.onFallback(f)
}

// waitFor is the wait after failed attempt number `attempt`.
func (c *Client) waitFor(attempt int, err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) && se.HasRetryAfter {
		return se.RetryAfter
	}
	return backoff(attempt, c.rand())
}

// ctxError reports a done ctx: it wraps ctx.Err() and, when it differs, the
// cause (for example a budget error set with context.WithDeadlineCause).
func ctxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("llm: %w (%w)", cause, err)
	}
	return fmt.Errorf("llm: %w", err)
}
