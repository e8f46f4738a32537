package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Options configures a Client. Zero values take the defaults noted.
type Options struct {
	BaseURL string // e.g. "https://api.openai.com/v1" (the default); "/chat/completions" is appended
	APIKey  string // sent as "Authorization: Bearer <key>" when not empty; never printed
	// KeySource names where APIKey came from ("ODEK_API_KEY", "config api_key"),
	// for authentication error messages. Empty means no key is configured.
	KeySource string
	// Stream selects SSE streaming (with stream_options.include_usage). The
	// config default is true; false uses the plain JSON call.
	Stream bool
	// MaxAttempts bounds attempts per Complete call, retries included
	// (default DefaultMaxAttempts).
	MaxAttempts int
	// HTTPClient is copied, never modified; its Transport (default
	// http.DefaultTransport) is wrapped to read Retry-After and bound bodies.
	HTTPClient *http.Client
	// Sleep waits between attempts; it must return early with ctx's error when
	// ctx is done (default: a timer raced against ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time // default time.Now
	Rand  func() float64   // in [0, 1), for jitter; default math/rand/v2
	// OnRetry, when set, is called before each wait with the number of the
	// attempt that failed, the wait, and that attempt's error.
	OnRetry func(attempt int, wait time.Duration, err error)
}

// Client calls an OpenAI-compatible chat-completions endpoint. It is safe for
// concurrent use.
type Client struct {
	api         *openai.Client
	enc         *requestEncoder
	stream      bool
	keySource   string
	maxAttempts int
	sleep       func(ctx context.Context, d time.Duration) error
	now         func() time.Time
	rand        func() float64
	onRetry     func(attempt int, wait time.Duration, err error)
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
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &captureTransport{base: base}
	cfg.HTTPClient = &hc
	// go-openai fails a stream after 300 consecutive non-data lines. Proxies
	// send SSE comments as keep-alives while a slow model thinks, so that
	// limit would break long waits; the body cap bounds the stream instead.
	cfg.EmptyMessagesLimit = 1 << 20

	c := &Client{
		api:         openai.NewClientWithConfig(cfg),
		enc:         newRequestEncoder(),
		stream:      o.Stream,
		keySource:   o.KeySource,
		maxAttempts: o.MaxAttempts,
		sleep:       o.Sleep,
		now:         o.Now,
		rand:        o.Rand,
		onRetry:     o.OnRetry,
	}
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

// Complete sends req and returns the assembled response, retrying transient
// failures (see retry.go for the policy). Errors are typed (errors.go); a
// cancelled ctx returns an error wrapping ctx.Err() and its cause.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	// go-openai sends and parses; the body is encoded here (encode.go), so
	// the request go-openai marshals is only a shell without the history.
	body, err := c.enc.encode(req, c.stream)
	if err != nil {
		return nil, &RequestError{Err: err}
	}
	oreq, err := toOpenAI(Request{Model: req.Model, MaxTokens: req.MaxTokens}, c.stream)
	if err != nil {
		return nil, &RequestError{Err: err}
	}
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		var resp *Response
		if c.stream {
			resp, err = c.streamOnce(ctx, oreq, body)
		} else {
			resp, err = c.plainOnce(ctx, oreq, body)
		}
		if err == nil {
			resp.Attempts = attempt
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		if !isRetryable(err) {
			return nil, err
		}
		if attempt >= c.maxAttempts {
			return nil, &RetryError{Attempts: attempt, Err: err}
		}
		wait := c.waitFor(attempt, err)
		if c.onRetry != nil {
			c.onRetry(attempt, wait, err)
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			if ctx.Err() != nil {
				return nil, ctxError(ctx)
			}
			return nil, fmt.Errorf("llm: waiting to retry: %w", serr)
		}
	}
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

// streamOnce is one streaming attempt. Timing starts when the request is
// handed to the transport; the first token is the first delta carrying
// content, reasoning or a tool call (role-only and empty deltas do not count).
func (c *Client) streamOnce(ctx context.Context, oreq openai.ChatCompletionRequest, body []byte) (*Response, error) {
	cp := &capture{body: body}
	start := c.now()
	stream, err := c.api.CreateChatCompletionStream(withCapture(ctx, cp), oreq)
	if err != nil {
		return nil, c.classify(cp, err)
	}
	defer stream.Close()

	var (
		a      assembler
		first  time.Time
		chunk  streamChunk
		tokens int
	)
	for {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, c.classifyStream(err)
		}
		if err := decodeChunk(raw, &chunk); err != nil {
			return nil, &MalformedResponseError{
				What: "SSE chunk",
				Err:  fmt.Errorf("%v (data: %q)", err, capString(string(raw), 120)),
			}
		}
		if a.add(&chunk) {
			tokens++
			if first.IsZero() {
				first = c.now()
			}
		}
	}
	end := c.now()

	_, _, _, bodyEOF, _ := cp.snapshot()
	switch {
	case a.chunks == 0:
		hint := "is base_url an OpenAI-compatible /v1 endpoint?"
		if ct := cp.contentType(); ct != "" && !strings.HasPrefix(ct, "text/event-stream") {
			hint = fmt.Sprintf("Content-Type %q: if the server does not stream, set stream to false", ct)
		}
		return nil, &MalformedResponseError{What: "SSE stream", Err: fmt.Errorf("no data events (%s)", hint)}
	case a.finish == "" && bodyEOF:
		// The body ended without [DONE] and no choice finished: truncated.
		return nil, &NetworkError{MidStream: true, Err: errors.New("stream ended without [DONE] or a finish_reason")}
	case !a.choices:
		return nil, &MalformedResponseError{What: "SSE stream", Err: errors.New("no chunk carried a choice")}
	}

	resp := &Response{
		Message:      a.message(),
		Usage:        a.usage.toUsage(),
		FinishReason: a.finish,
		Timing:       Timing{Total: end.Sub(start), TokenChunks: tokens},
	}
	if !first.IsZero() {
		resp.Timing.TimeToFirstToken = first.Sub(start)
		resp.Timing.Generation = end.Sub(first)
	}
	return resp, nil
}

// plainOnce is one non-streaming attempt. Timing has no time to first token;
// Generation equals Total.
func (c *Client) plainOnce(ctx context.Context, oreq openai.ChatCompletionRequest, body []byte) (*Response, error) {
	cp := &capture{teeBody: true, body: body}
	start := c.now()
	out, err := c.api.CreateChatCompletion(withCapture(ctx, cp), oreq)
	if err != nil {
		return nil, c.classify(cp, err)
	}
	end := c.now()

	// go-openai drops usage extensions and cannot tell absent usage from zero:
	// read usage (and a possible error object) from the body as received.
	var extra struct {
		Usage *wireUsage `json:"usage"`
		Error *struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	_ = json.NewDecoder(bytes.NewReader(cp.teed())).Decode(&extra)

	var choice *openai.ChatCompletionChoice
	for i := range out.Choices {
		if out.Choices[i].Index == 0 {
			choice = &out.Choices[i]
			break
		}
	}
	if choice == nil {
		if extra.Error != nil && extra.Error.Message != "" {
			return nil, providerError(extra.Error.Message, fmt.Sprint(extra.Error.Code))
		}
		return nil, &MalformedResponseError{What: "response JSON", Err: errors.New("no choices")}
	}
	total := end.Sub(start)
	return &Response{
		Message: Message{
			Role:             RoleAssistant,
			Content:          choice.Message.Content,
			ReasoningContent: choice.Message.ReasoningContent,
			ToolCalls:        fromOpenAIToolCalls(choice.Message.ToolCalls),
		},
		Usage:        extra.Usage.toUsage(),
		FinishReason: string(choice.FinishReason),
		Timing:       Timing{Generation: total, Total: total},
	}, nil
}

// classify turns an error from go-openai's request phase (connect, status,
// and for non-streaming calls the body) into odek's typed errors.
func (c *Client) classify(cp *capture, err error) error {
	status, retryAfter, errBody, _, bodyErr := cp.snapshot()

	code, msg, apiCode := 0, "", ""
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		code, msg = apiErr.HTTPStatusCode, apiErr.Message
		if apiErr.Code != nil {
			apiCode = fmt.Sprint(apiErr.Code)
		}
	case errors.As(err, &reqErr):
		code = reqErr.HTTPStatusCode
	}
	if code == 0 && status >= 400 {
		code = status // e.g. the error body could not be read
	}
	if code >= 400 {
		return c.statusError(code, msg, apiCode, errBody, retryAfter)
	}
	if errors.Is(err, errBodyTooLarge) || errors.Is(bodyErr, errBodyTooLarge) {
		return &MalformedResponseError{What: "response", Err: errBodyTooLarge}
	}
	if bodyErr != nil {
		return &NetworkError{MidStream: true, Err: bodyErr}
	}
	if status >= 200 && status < 300 {
		if b := cp.teed(); len(b) > 0 {
			err = fmt.Errorf("%w (body: %q)", err, capString(string(b), 120))
		}
		return &MalformedResponseError{What: "response JSON", Err: err}
	}
	if !cp.wasSent() {
		return &RequestError{Err: err}
	}
	return &NetworkError{Err: err}
}

// classifyStream turns an error met while reading a 200 stream into odek's
// typed errors.
func (c *Client) classifyStream(err error) error {
	var apiErr *openai.APIError
	switch {
	case errors.As(err, &apiErr):
		code := ""
		if apiErr.Code != nil {
			code = fmt.Sprint(apiErr.Code)
		}
		return providerError(apiErr.Message, code)
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return &MalformedResponseError{What: "SSE stream", Err: errors.New("too many consecutive lines without a data: field")}
	case errors.Is(err, errBodyTooLarge):
		return &MalformedResponseError{What: "response", Err: errBodyTooLarge}
	}
	return &NetworkError{MidStream: true, Err: err}
}

// statusError maps an HTTP error status to a typed error.
func (c *Client) statusError(code int, msg, apiCode string, body []byte, retryAfter string) error {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		return &AuthError{Status: code, KeySource: c.keySource}
	}
	text := msg
	if text == "" {
		text = string(body)
	}
	if code >= 400 && code < 500 && code != http.StatusTooManyRequests &&
		isContextLengthText(msg, apiCode, string(body)) {
		return &ContextLengthError{Status: code, Message: capString(text, maxErrorBodyInMessage)}
	}
	se := &StatusError{Status: code, Body: text}
	se.RetryAfter, se.HasRetryAfter = parseRetryAfter(retryAfter, c.now())
	return se
}

// providerError maps an error object sent with status 200.
func providerError(msg, code string) error {
	if isContextLengthText(msg, code) {
		return &ContextLengthError{Message: capString(msg, maxErrorBodyInMessage)}
	}
	if msg == "" {
		msg = "(no message)"
	}
	return &ProviderError{Message: capString(msg, maxErrorBodyInMessage)}
}
