package llm

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry policy.
//
// Retried: network errors (refused, reset, dropped mid-stream — the caller sees
// nothing until a response is fully assembled, so a drop loses nothing),
// timeouts (Timeouts), a bad SSE data line or a JSON body cut short,
// provider errors sent inside a stream, and HTTP 429, 500, 502, 503, 504.
// Not retried: every other 4xx (400, 401, 403, 404, ...), context-length
// errors, a body that is not the protocol at all (an HTML page), invalid
// requests, and cancellation (including a --max-runtime deadline).
//
// Wait before attempt n+1 (n = failed attempts so far):
//   - when the response carried Retry-After (delta-seconds or HTTP-date), that
//     value, capped at MaxRetryAfter;
//   - otherwise "equal jitter" exponential backoff: with b = RetryBase·2^(n-1)
//     (capped at MaxRetryAfter), wait b/2 + rand·b/2, i.e. in [b/2, b). Equal
//     jitter keeps a floor under the wait (full jitter can retry at once) while
//     still spreading clients apart.
//
// The wait runs through Options.Sleep and is cut short by ctx.
//
// An endpoint that went silent (a first-byte, idle or request timeout) is
// given one more attempt, not three: a fresh connection may reach a healthy
// backend, but a second silence means the endpoint is stalled, not flaky,
// and each silence costs a whole timeout. So a hung provider ends a call
// after two timeouts (about 4 minutes with the default first-byte timeout,
// 3 after a stall mid-stream), not after DefaultMaxAttempts of them.
const (
	DefaultMaxAttempts  = 4
	MaxTimedOutAttempts = 2
	RetryBase           = time.Second
	MaxRetryAfter       = 60 * time.Second
)

// backoff returns the jittered wait after `failed` failed attempts (>= 1).
func backoff(failed int, rnd float64) time.Duration {
	if failed < 1 {
		failed = 1
	}
	b := float64(RetryBase) * math.Pow(2, float64(failed-1))
	if b > float64(MaxRetryAfter) {
		b = float64(MaxRetryAfter)
	}
	if rnd < 0 || rnd >= 1 || math.IsNaN(rnd) {
		rnd = 0.5
	}
	return time.Duration(b/2 + rnd*b/2)
}

// parseRetryAfter reads a Retry-After value: delta-seconds (fractions are
// tolerated) or an HTTP-date relative to now. ok is false when the header is
// absent or unreadable. The result is clamped to [0, MaxRetryAfter].
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(secs) || secs < 0 {
			return 0, false
		}
		if secs > MaxRetryAfter.Seconds() {
			return MaxRetryAfter, true
		}
		d = time.Duration(secs * float64(time.Second))
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return 0, false
	}
	return min(max(d, 0), MaxRetryAfter), true
}

// retryableStatus lists the HTTP statuses worth another attempt.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// isRetryable reports whether err (as returned by one attempt) is transient.
func isRetryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return retryableStatus(se.Status)
	}
	var ne *NetworkError
	var te *TimeoutError
	var pe *ProviderError
	var me *MalformedResponseError
	switch {
	case errors.As(err, &ne), errors.As(err, &te), errors.As(err, &pe):
		return true
	case errors.As(err, &me):
		return me.Transient
	}
	return false
}

// stalled reports an attempt the endpoint let time out after the
// connection was made: it went silent (a connect timeout is a network
// failure like a refused connection, and keeps the full retry count).
func stalled(err error) bool {
	var te *TimeoutError
	return errors.As(err, &te) && te.Phase != PhaseConnect
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
