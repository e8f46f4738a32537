package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/errclass"
)

// Completer is what a Chain sends each request through: a *Client.
type Completer interface {
	Complete(ctx context.Context, req Request) (*Response, error)
}

// Chain is the model and its fallbacks (--fallback-model, llm.fallback_
// models): every request goes to the model in use, and when that model
// fails in a way another model may not (FallbackWorthy: overloaded, rate
// limited or failing after its retries), the chain moves to the next one
// for the rest of its life and sends the request again. It is safe for
// concurrent use; the caller's budgets see every model's usage, since each
// Response names the model that served it.
type Chain struct {
	next     Completer
	models   []string
	onSwitch func(ModelSwitch)

	mu     sync.Mutex
	active int
}

// ModelSwitch is a Chain moving from one model to the next.
type ModelSwitch struct {
	From, To string
	// Err is the error that ended From: after its retries, or one not
	// retried (an overloaded 529).
	Err error
}

// NewChain sends requests through next to models[0], then the fallbacks
// in order; onSwitch, when set, hears each move (before the request is
// sent again) to tell the operator and the event stream. Empty and
// repeated model names are dropped.
func NewChain(next Completer, models []string, onSwitch func(ModelSwitch)) *Chain {
	var ms []string
	for _, m := range models {
		if m != "" && !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	return &Chain{next: next, models: ms, onSwitch: onSwitch}
}

// Model is the model in use.
func (c *Chain) Model() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.models[c.active]
}

// Models are the models the chain has sent requests to, in order: the
// first, and each it moved to.
func (c *Chain) Models() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.models[:c.active+1]...)
}

// Complete sends req (its Model replaced by the model in use) and, when
// that model fails in a way worth a fallback and another model is left,
// moves on and sends it again. The last model's error is returned as it is.
func (c *Chain) Complete(ctx context.Context, req Request) (*Response, error) {
	for {
		c.mu.Lock()
		at := c.active
		req.Model = c.models[at]
		c.mu.Unlock()
		resp, err := c.next.Complete(ctx, req)
		if err == nil {
			if resp.Model == "" {
				resp.Model = req.Model
			}
			return resp, nil
		}
		if ctx.Err() != nil || !FallbackWorthy(err) || !c.advance(at, err) {
			return nil, err
		}
	}
}

// advance moves past model number at, which failed with err; false when
// it was the last. A call that failed on a model another call has already
// moved past just tries the model in use.
func (c *Chain) advance(at int, err error) bool {
	c.mu.Lock()
	if c.active != at {
		c.mu.Unlock()
		return true
	}
	if at+1 >= len(c.models) {
		c.mu.Unlock()
		return false
	}
	c.active = at + 1
	sw := ModelSwitch{From: c.models[at], To: c.models[at+1], Err: err}
	c.mu.Unlock()
	if c.onSwitch != nil {
		c.onSwitch(sw)
	}
	return true
}

// FallbackWorthy reports an error another model may not have: HTTP 429,
// a 5xx other than 501, or an error object the provider sent with a 200
// (an "overloaded" mid-stream), whether after the retries or not retried
// at all (529); and an endpoint that went silent for this model twice (a
// first-byte, idle or request timeout: a router sends another model
// elsewhere). Not: an authentication failure, a bad request, a context
// length error, a refused connection or connect timeout (the endpoint, not
// the model), a malformed response, a cancellation.
func FallbackWorthy(err error) bool {
	if err == nil {
		return false
	}
	var se *StatusError
	var pe *ProviderError
	switch {
	case errors.As(err, &se):
		return se.Status == http.StatusTooManyRequests || se.Status >= 500 && se.Status <= 599 && se.Status != http.StatusNotImplemented
	case errors.As(err, &pe):
		return true
	}
	var re *RetryError
	return errors.As(err, &re) && stalled(re.Err)
}

// Notice is the operator's line on stderr.
func (s ModelSwitch) Notice() string {
	return fmt.Sprintf("model %q failed (%s); using the fallback model %q for the rest of the run", s.From, s.reason(), s.To)
}

// Data is the model_fallback event's data: from, to, error_class, status
// (the last HTTP status; absent for none) and the error on one line.
func (s ModelSwitch) Data() map[string]any {
	d := map[string]any{"from": s.From, "to": s.To, "error_class": s.class(), "error": oneLineError(s.Err)}
	var se *StatusError
	if errors.As(s.Err, &se) {
		d["status"] = se.Status
	}
	return d
}

// class is the error_class of the error that ended From.
func (s ModelSwitch) class() string {
	var c interface{ ErrorClass() string }
	if errors.As(s.Err, &c) {
		return c.ErrorClass()
	}
	return errclass.ProviderError
}

// reason says briefly why From was left.
func (s ModelSwitch) reason() string {
	var se *StatusError
	var re *RetryError
	what := "provider error"
	switch {
	case errors.As(s.Err, &se) && se.Status == http.StatusTooManyRequests:
		what = "rate limited, HTTP 429"
	case errors.As(s.Err, &se):
		what = fmt.Sprintf("HTTP %d", se.Status)
	case errors.As(s.Err, new(*TimeoutError)):
		what = "timed out"
	}
	if errors.As(s.Err, &re) && re.Attempts > 1 {
		return fmt.Sprintf("%s after %d attempts", what, re.Attempts)
	}
	return what
}

// oneLineError is err's text on one line, without the package prefix.
func oneLineError(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimPrefix(strings.Join(strings.Fields(err.Error()), " "), "llm: ")
}
