package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/errclass"
)

// Sentinels for errors.Is. Each typed error below answers Is for its sentinel,
// also through a *RetryError, so callers can classify without type switches.
var (
	// ErrRateLimited matches a *StatusError with HTTP 429, directly or as the last
	// error of a *RetryError (the runner reports such a run as rate_limited).
	ErrRateLimited = errors.New("llm: rate limited")
	// ErrAuth matches an *AuthError.
	ErrAuth = errors.New("llm: authentication failed")
	// ErrContextLength matches a *ContextLengthError.
	ErrContextLength = errors.New("llm: context length exceeded")
	// ErrMalformedResponse matches a *MalformedResponseError.
	ErrMalformedResponse = errors.New("llm: malformed response")
	// ErrTimeout matches a *TimeoutError.
	ErrTimeout = errors.New("llm: timeout")
)

// maxErrorBodyInMessage caps how much of a provider's error body goes into an
// error message.
const maxErrorBodyInMessage = 512

// Every typed error says its error_class (events.Classifier): provider_auth
// for an *AuthError, rate_limited for HTTP 429, error for a request odek
// could not build, provider_error for everything else the provider did.

// RetryError is returned when a retryable failure persisted through every
// attempt. Err is the last attempt's error; the message says the endpoint,
// the attempts and that cause on one line.
type RetryError struct {
	Attempts int
	Endpoint string
	Err      error
}

func (e *RetryError) Error() string {
	noun := "attempts"
	if e.Attempts == 1 {
		noun = "attempt"
	}
	at := ""
	if e.Endpoint != "" {
		at = " calling " + e.Endpoint
	}
	return fmt.Sprintf("llm: retry exhausted (%d %s)%s: %s", e.Attempts, noun, at, strings.TrimPrefix(e.Err.Error(), "llm: "))
}

func (e *RetryError) Unwrap() error { return e.Err }

// ErrorClass is the last attempt's class.
func (e *RetryError) ErrorClass() string {
	var c interface{ ErrorClass() string }
	if errors.As(e.Err, &c) {
		return c.ErrorClass()
	}
	return errclass.ProviderError
}

// AuthError is an HTTP 401 or 403. It names where the key came from (KeySource,
// e.g. "ODEK_API_KEY" or "config api_key") and never carries the key itself or
// the provider's message (providers sometimes echo part of the key).
type AuthError struct {
	Status    int
	KeySource string
}

func (e *AuthError) Error() string {
	what := "authentication failed"
	fix := "check that the key is valid for this endpoint"
	if e.Status == http.StatusForbidden {
		what = "access denied"
		fix = "check that the key is valid for this endpoint and has access to the model"
	}
	if e.KeySource == "" {
		return fmt.Sprintf("llm: %s (HTTP %d) and no API key is configured; set ODEK_API_KEY or api_key in the config", what, e.Status)
	}
	return fmt.Sprintf("llm: %s (HTTP %d) using the key from %s; %s", what, e.Status, e.KeySource, fix)
}

func (e *AuthError) Is(target error) bool { return target == ErrAuth }

// ErrorClass implements events.Classifier.
func (e *AuthError) ErrorClass() string { return errclass.ProviderAuth }

// ContextLengthError means the provider rejected the request because the
// prompt (plus max_tokens) does not fit the model's context window. The loop
// trims history and tries again.
type ContextLengthError struct {
	Status  int    // HTTP status, 0 when the error came inside a stream
	Message string // the provider's message, capped
}

func (e *ContextLengthError) Error() string {
	msg := strings.Join(strings.Fields(e.Message), " ")
	if e.Status == 0 {
		return "llm: context length exceeded: " + msg
	}
	return fmt.Sprintf("llm: context length exceeded (HTTP %d): %s", e.Status, msg)
}

func (e *ContextLengthError) Is(target error) bool { return target == ErrContextLength }

// ErrorClass implements events.Classifier.
func (e *ContextLengthError) ErrorClass() string { return errclass.ProviderError }

// StatusError is any other HTTP error status. Body is the provider's error
// message when the body was an OpenAI-style error object, else the raw body
// (both capped). A 404 also names the endpoint and the model.
type StatusError struct {
	Status     int
	Body       string
	RetryAfter time.Duration // parsed Retry-After (capped at MaxRetryAfter); see HasRetryAfter
	// HasRetryAfter is true when the response carried a readable Retry-After
	// (which may be 0: "retry now").
	HasRetryAfter bool
	// Endpoint and Model are set for a 404: a wrong base_url or an unknown
	// model, and the message must say which was asked for.
	Endpoint, Model string
}

func (e *StatusError) Error() string {
	text := http.StatusText(e.Status)
	if text == "" {
		text = "HTTP error"
	}
	head := fmt.Sprintf("llm: %s (status %d)", text, e.Status)
	if e.Endpoint != "" {
		head += fmt.Sprintf(" from %s for model %q", e.Endpoint, e.Model)
	}
	body := capString(strings.Join(strings.Fields(e.Body), " "), maxErrorBodyInMessage)
	if body != "" {
		head += ": " + body
	}
	if e.Status == http.StatusNotFound {
		head += "; check base_url and model"
	}
	return head
}

// Is reports ErrRateLimited for HTTP 429.
func (e *StatusError) Is(target error) bool {
	return target == ErrRateLimited && e.Status == http.StatusTooManyRequests
}

// ErrorClass implements events.Classifier.
func (e *StatusError) ErrorClass() string {
	if e.Status == http.StatusTooManyRequests {
		return errclass.RateLimited
	}
	return errclass.ProviderError
}

// NetworkError is a transport failure: the connection could not be made, was
// reset, or was dropped before the response was complete (MidStream). It is
// retried.
type NetworkError struct {
	MidStream bool
	Err       error
}

func (e *NetworkError) Error() string {
	if e.MidStream {
		return fmt.Sprintf("llm: connection lost before the response was complete: %v", e.Err)
	}
	return fmt.Sprintf("llm: request failed: %v", e.Err)
}

func (e *NetworkError) Unwrap() error { return e.Err }

// ErrorClass implements events.Classifier.
func (e *NetworkError) ErrorClass() string { return errclass.ProviderError }

// TimeoutError is an attempt that one of the Timeouts ended. It is retried
// like a network error; the message names the timeout, its limit and the
// config key that sets it.
type TimeoutError struct {
	Phase string // PhaseConnect, PhaseFirstByte, PhaseIdle or PhaseRequest
	Limit time.Duration
}

// timeoutKeys are the config keys of the timeouts, for messages.
var timeoutKeys = map[string]string{
	PhaseConnect:   "llm.connect_timeout_seconds",
	PhaseFirstByte: "llm.first_byte_timeout_seconds",
	PhaseIdle:      "llm.idle_timeout_seconds",
	PhaseRequest:   "llm.request_timeout_seconds",
}

func (e *TimeoutError) Error() string {
	var what string
	switch e.Phase {
	case PhaseConnect:
		what = "no connection within " + e.Limit.String()
	case PhaseFirstByte:
		what = "no response within " + e.Limit.String() + " of sending the request"
	case PhaseIdle:
		what = "the response sent nothing for " + e.Limit.String()
	default:
		what = "the call was still running after " + e.Limit.String()
	}
	return fmt.Sprintf("llm: %s timeout: %s (%s)", e.Phase, what, timeoutKeys[e.Phase])
}

func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// ErrorClass implements events.Classifier: the provider did not answer in time.
func (e *TimeoutError) ErrorClass() string { return errclass.ProviderError }

// ProviderError is an error object the provider sent with a 200 status:
// inside an SSE stream (for example "overloaded" mid-stream) or as the whole
// non-streaming body. It is retried like a server error, unless it is a
// context-length error, which becomes a *ContextLengthError.
type ProviderError struct {
	Message string
}

func (e *ProviderError) Error() string {
	return "llm: provider error in a 200 response: " + e.Message
}

// ErrorClass implements events.Classifier.
func (e *ProviderError) ErrorClass() string { return errclass.ProviderError }

// MalformedResponseError is a 2xx response that is not what the protocol says:
// an SSE chunk that is not JSON, a stream with no data events, a body that is
// not a chat completion. Transient ones (a bad data: line, a JSON body cut
// short) are retried like a dropped stream; the others are a protocol
// mismatch (a wrong base_url, a proxy's HTML page) that a retry does not fix.
type MalformedResponseError struct {
	What      string // e.g. "SSE stream", "SSE chunk", "response JSON"
	Transient bool
	Err       error
}

func (e *MalformedResponseError) Error() string {
	return fmt.Sprintf("llm: malformed %s: %v", e.What, e.Err)
}

func (e *MalformedResponseError) Unwrap() error { return e.Err }

func (e *MalformedResponseError) Is(target error) bool { return target == ErrMalformedResponse }

// ErrorClass implements events.Classifier.
func (e *MalformedResponseError) ErrorClass() string { return errclass.ProviderError }

// RequestError is a request that could not be sent at all (it failed to
// marshal, or go-openai rejected it). It is not retried.
type RequestError struct {
	Err error
}

func (e *RequestError) Error() string { return fmt.Sprintf("llm: invalid request: %v", e.Err) }

func (e *RequestError) Unwrap() error { return e.Err }

// ErrorClass implements events.Classifier: odek's side failed, not the provider.
func (e *RequestError) ErrorClass() string { return errclass.Error }

// WireError is an answer that says the endpoint does not serve the wire
// odek speaks (a 404 or 405 to /responses): a setup error that names the
// setting to change, never retried.
type WireError struct {
	Endpoint string
	Status   int
	Body     string
}

func (e *WireError) Error() string {
	msg := fmt.Sprintf("llm: %s answered HTTP %d (%s): the endpoint does not serve the Responses API; "+
		`set llm.wire_api to "chat" (or --wire-api chat)`, e.Endpoint, e.Status, http.StatusText(e.Status))
	if body := capString(strings.Join(strings.Fields(e.Body), " "), 120); body != "" {
		msg += " (its answer: " + body + ")"
	}
	return msg
}

// ErrorClass implements events.Classifier: the setup must change.
func (e *WireError) ErrorClass() string { return errclass.SetupError }

// statusError maps an HTTP error status to a typed error. msg and apiCode
// come from an OpenAI-style error object, body when there was none.
func (c *Client) statusError(code int, msg, apiCode, body, retryAfter string) error {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		return &AuthError{Status: code, KeySource: c.keySource}
	}
	text := msg
	if text == "" {
		text = body
	}
	if code >= 400 && code < 500 && code != http.StatusTooManyRequests &&
		isContextLengthText(msg, apiCode, body) {
		return &ContextLengthError{Status: code, Message: capString(text, maxErrorBodyInMessage)}
	}
	se := &StatusError{Status: code, Body: capString(text, maxErrorBodyInMessage)}
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

// contextLengthMarkers are matched case-insensitively against provider error
// text (message, code and body).
var contextLengthMarkers = []string{
	"context_length_exceeded",
	"maximum context length",
	"context length",
	"token limit",
	"context window",
	"max_input_tokens",
	"input length",
	"too many tokens",
	"input is too long",
	"reduce the length",
	"context size",
}

// isContextLengthText reports whether provider error text names a context
// length problem.
func isContextLengthText(parts ...string) bool {
	for _, p := range parts {
		if p == "" {
			continue
		}
		l := strings.ToLower(p)
		for _, m := range contextLengthMarkers {
			if strings.Contains(l, m) {
				return true
			}
		}
	}
	return false
}

// capString cuts s to at most n bytes (on a rune boundary) and marks the cut.
func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
