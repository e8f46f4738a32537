package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
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
)

// maxErrorBodyInMessage caps how much of a provider's error body goes into an
// error message.
const maxErrorBodyInMessage = 512

// RetryError is returned when a retryable failure persisted through every
// attempt. Err is the last attempt's error.
type RetryError struct {
	Attempts int
	Err      error
}

func (e *RetryError) Error() string {
	noun := "attempts"
	if e.Attempts == 1 {
		noun = "attempt"
	}
	return fmt.Sprintf("llm: retry exhausted (%d %s): %v", e.Attempts, noun, e.Err)
}

func (e *RetryError) Unwrap() error { return e.Err }

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

// StatusError is any other HTTP error status. Body is the provider's error
// message when the body was an OpenAI-style error object, else the raw body
// (both capped).
type StatusError struct {
	Status     int
	Body       string
	RetryAfter time.Duration // parsed Retry-After (capped at MaxRetryAfter); see HasRetryAfter

	// HasRetryAfter is true when the response carried a readable Retry-After
	// (which may be 0: "retry now").
	HasRetryAfter bool
}

func (e *StatusError) Error() string {
	text := http.StatusText(e.Status)
	if text == "" {
		text = "HTTP error"
	}
	body := capString(strings.Join(strings.Fields(e.Body), " "), maxErrorBodyInMessage)
	if body == "" {
		return fmt.Sprintf("llm: %s (status %d)", text, e.Status)
	}
	return fmt.Sprintf("llm: %s (status %d): %s", text, e.Status, body)
}

// Is reports ErrRateLimited for HTTP 429.
func (e *StatusError) Is(target error) bool {
	return target == ErrRateLimited && e.Status == http.StatusTooManyRequests
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

// MalformedResponseError is a 2xx response that is not what the protocol says:
// an SSE stream with a chunk that is not JSON, a stream with no data events, a
// non-streaming body that is not a chat completion. It is NOT retried: a
// malformed body is almost always a protocol mismatch (a wrong base_url, a
// proxy's HTML page) that a retry does not fix, and truncation, the transient
// case, is reported as a *NetworkError instead.
type MalformedResponseError struct {
	What string // e.g. "SSE stream", "SSE chunk", "response JSON"
	Err  error
}

func (e *MalformedResponseError) Error() string {
	return fmt.Sprintf("llm: malformed %s: %v", e.What, e.Err)
}

func (e *MalformedResponseError) Unwrap() error { return e.Err }

func (e *MalformedResponseError) Is(target error) bool { return target == ErrMalformedResponse }

// RequestError is a request that could not be sent at all (it failed to
// marshal, or the wire library rejected it). It is not retried.
type RequestError struct {
	Err error
}

func (e *RequestError) Error() string { return fmt.Sprintf("llm: invalid request: %v", e.Err) }

func (e *RequestError) Unwrap() error { return e.Err }

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
