package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/llm"
)

// These tests close survivors of mutation testing (scripts/hand-mutate.sh).

// statusClient answers every call with status and body.
func statusClient(status int, body string, rec *recorder) *llm.Client {
	return llm.New(llm.Options{
		BaseURL: "http://fake.invalid/v1", APIKey: testKey, KeySource: "ODEK_API_KEY", Stream: false, MaxAttempts: 1,
		HTTPClient: &http.Client{Transport: &fixedTransport{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: body}},
		Sleep:      rec.sleep,
		Rand:       func() float64 { return 0.5 },
	})
}

// A 401 or 403 is an AuthError naming the key's source; the provider's
// text, which may echo the key, is never in it.
func TestAuthErrorNeverCarriesTheProvidersText(t *testing.T) {
	for _, status := range []int{401, 403} {
		body := `{"error":{"message":"Incorrect API key provided: ` + testKey + `","code":"invalid_api_key"}}`
		_, err := statusClient(status, body, &recorder{}).Complete(context.Background(), simpleRequest())
		var ae *llm.AuthError
		if !errors.As(err, &ae) || !errors.Is(err, llm.ErrAuth) {
			t.Fatalf("status %d: %v, want an AuthError", status, err)
		}
		if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "Incorrect") || !strings.Contains(err.Error(), "ODEK_API_KEY") {
			t.Fatalf("status %d: %q", status, err)
		}
	}
}

// A provider's error object in a 200 response is cut to a bounded message.
func TestProviderErrorMessageCapped(t *testing.T) {
	long := strings.Repeat("x", 5000)
	_, err := bodyClient(`{"error":{"message":"`+long+`","code":"server_error"}}`, false, &recorder{}).Complete(context.Background(), simpleRequest())
	var pe *llm.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("Complete = %v, want a ProviderError", err)
	}
	if n := len(pe.Message); n > 600 || !strings.HasSuffix(pe.Message, "…") {
		t.Fatalf("the message is %d bytes: %.80q…", n, pe.Message)
	}
}

// An HTTP error's body is cut to a bounded message.
func TestStatusErrorBodyCapped(t *testing.T) {
	_, err := statusClient(400, strings.Repeat("y", 5000), &recorder{}).Complete(context.Background(), simpleRequest())
	var se *llm.StatusError
	if !errors.As(err, &se) || len(se.Body) > 600 || len(err.Error()) > 800 {
		t.Fatalf("Complete = %.200v (body %d bytes)", err, len(se.Body))
	}
}

// A context-length error's provider text is cut to a bounded message, both
// from an HTTP error status and from an error object sent with a 200.
func TestContextLengthErrorMessageCapped(t *testing.T) {
	long := "This model's maximum context length is 8192 tokens. " + strings.Repeat("z", 5000)
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"400", func() error {
			_, err := statusClient(400, long, &recorder{}).Complete(context.Background(), simpleRequest())
			return err
		}},
		{"200 error object", func() error {
			_, err := bodyClient(`{"error":{"message":"`+long+`","code":"context_length_exceeded"}}`, false, &recorder{}).Complete(context.Background(), simpleRequest())
			return err
		}},
	} {
		err := tc.err()
		var ce *llm.ContextLengthError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: Complete = %.200v, want a ContextLengthError", tc.name, err)
		}
		if n := len(ce.Message); n > 600 || !strings.HasSuffix(ce.Message, "…") || !strings.HasPrefix(ce.Message, "This model's") {
			t.Fatalf("%s: the message is %d bytes: %.80q…", tc.name, n, ce.Message)
		}
		if n := len(err.Error()); n > 700 {
			t.Fatalf("%s: the error is %d bytes", tc.name, n)
		}
	}
}

// A refused reasoning_effort "none" says which flag asked for it; another
// value does not.
func TestFallbackWarningNamesThinkingOff(t *testing.T) {
	none := llm.Fallback{Field: llm.FieldReasoningEffort, Value: llm.EffortNone, Model: "m", Status: 400, Message: "no"}
	if w := none.Warning(); !strings.Contains(w, `reasoning_effort "none" (--thinking off)`) {
		t.Errorf("none: %q", w)
	}
	high := llm.Fallback{Field: llm.FieldReasoningEffort, Value: "high", Model: "m", Status: 400, Message: "no"}
	if w := high.Warning(); strings.Contains(w, "--thinking off") || !strings.Contains(w, `reasoning_effort "high"`) {
		t.Errorf("high: %q", w)
	}
}

// A context-length error says where it came from: an HTTP status, or a
// stream (status 0).
func TestContextLengthErrorText(t *testing.T) {
	if got := (&llm.ContextLengthError{Message: "too  long"}).Error(); got != "llm: context length exceeded: too long" {
		t.Errorf("in-stream: %q", got)
	}
	if got := (&llm.ContextLengthError{Status: 413, Message: "too long"}).Error(); got != "llm: context length exceeded (HTTP 413): too long" {
		t.Errorf("HTTP: %q", got)
	}
}

// Only a 4xx names a context-length problem: a 5xx whose text mentions the
// context is a server error, retried.
func TestServerErrorMentioningContextIsRetried(t *testing.T) {
	for _, status := range []int{500, 503} {
		rec := &recorder{}
		_, err := statusClient(status, "upstream failed: maximum context length of the backend pool", rec).Complete(context.Background(), simpleRequest())
		var se *llm.StatusError
		if !errors.As(err, &se) || se.Status != status || errors.Is(err, llm.ErrContextLength) {
			t.Fatalf("status %d: %v, want a StatusError", status, err)
		}
	}
}

// A 400 whose error code alone names the context length (the message does
// not) is a context-length error, from an HTTP status and inside a stream.
func TestContextLengthFromTheCodeAlone(t *testing.T) {
	obj := `{"error":{"message":"Request too large for this model","type":"invalid_request_error","code":"context_length_exceeded"}}`
	_, err := statusClient(400, obj, &recorder{}).Complete(context.Background(), simpleRequest())
	if !errors.Is(err, llm.ErrContextLength) {
		t.Errorf("HTTP 400: %v, want a ContextLengthError", err)
	}
	_, err = bodyClient("data: "+obj+"\n\n", true, &recorder{}).Complete(context.Background(), simpleRequest())
	if !errors.Is(err, llm.ErrContextLength) {
		t.Errorf("in-stream: %v, want a ContextLengthError", err)
	}
}

// A stream with no data events hints at the base URL when the server named
// no Content-Type, and at the stream setting when it named another one.
func TestNoDataEventsHint(t *testing.T) {
	for _, tc := range []struct {
		header http.Header
		want   string
	}{
		{http.Header{}, "is base_url an OpenAI-compatible /v1 endpoint?"},
		{http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}, "is base_url an OpenAI-compatible /v1 endpoint?"},
		{http.Header{"Content-Type": {"application/json"}}, `Content-Type "application/json": if the server does not stream, set stream to false`},
	} {
		c := llm.New(llm.Options{
			BaseURL: "http://fake.invalid/v1", APIKey: testKey, Stream: true, MaxAttempts: 1,
			HTTPClient: &http.Client{Transport: &fixedTransport{status: 200, header: tc.header, body: "\n"}},
			Sleep:      (&recorder{}).sleep,
		})
		_, err := c.Complete(context.Background(), simpleRequest())
		if !errors.Is(err, llm.ErrMalformedResponse) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Content-Type %q: %v, want the hint %q", tc.header.Get("Content-Type"), err, tc.want)
		}
	}
}

// A wait between attempts that fails on its own is reported as that
// failure; one ended by ctx reports ctx's cause (a budget stop), and a plain
// cancel says so once.
func TestRetryWaitErrors(t *testing.T) {
	broken := errors.New("clock stopped")
	stopped := errors.New("budget spent")
	for _, tc := range []struct {
		name  string
		sleep func(ctx context.Context, cancel context.CancelCauseFunc) error
		check func(error) bool
	}{
		{"wait fails", func(context.Context, context.CancelCauseFunc) error { return broken },
			func(err error) bool {
				return errors.Is(err, broken) && err.Error() == "llm: waiting to retry: clock stopped"
			}},
		{"ctx stopped with a cause", func(ctx context.Context, cancel context.CancelCauseFunc) error { cancel(stopped); return ctx.Err() },
			func(err error) bool { return errors.Is(err, stopped) && errors.Is(err, context.Canceled) }},
		{"ctx cancelled", func(ctx context.Context, cancel context.CancelCauseFunc) error { cancel(nil); return ctx.Err() },
			func(err error) bool {
				return errors.Is(err, context.Canceled) && err.Error() == "llm: context canceled"
			}},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		c := llm.New(llm.Options{
			BaseURL: "http://fake.invalid/v1", APIKey: testKey, Stream: false, MaxAttempts: 3,
			HTTPClient: &http.Client{Transport: &fixedTransport{status: 500, header: http.Header{}, body: "down"}},
			Sleep:      func(ctx context.Context, _ time.Duration) error { return tc.sleep(ctx, cancel) },
			Rand:       func() float64 { return 0.5 },
		})
		_, err := c.Complete(ctx, simpleRequest())
		cancel(nil)
		if !tc.check(err) {
			t.Errorf("%s: Complete = %v", tc.name, err)
		}
	}
}

// A free model's cost of 0 is a reported cost; a negative one is not.
func TestUsageCostZeroIsReported(t *testing.T) {
	for _, tc := range []struct {
		cost     string
		reported bool
	}{{"0", true}, {"0.25", true}, {"-1", false}} {
		body := `{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":1,"total_tokens":8,"cost":` + tc.cost + `}}`
		resp, err := bodyClient(body, false, &recorder{}).Complete(context.Background(), simpleRequest())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage.CostReported != tc.reported || !resp.Usage.Present {
			t.Errorf("cost %s: usage %+v, want CostReported %t", tc.cost, resp.Usage, tc.reported)
		}
	}
}

// A non-streaming usage without total_tokens (or with zero output) is still
// a usage: the budget counts it.
func TestPlainUsageWithoutTotal(t *testing.T) {
	for _, u := range []string{
		`{"prompt_tokens":5,"completion_tokens":3}`,
		`{"prompt_tokens":5,"completion_tokens":0,"total_tokens":0}`,
		`{"prompt_tokens":0,"completion_tokens":3,"total_tokens":0}`,
	} {
		body := `{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":` + u + `}`
		resp, err := bodyClient(body, false, &recorder{}).Complete(context.Background(), simpleRequest())
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Usage.Present || resp.Usage.InputTokens+resp.Usage.OutputTokens == 0 {
			t.Errorf("usage %s read as %+v", u, resp.Usage)
		}
	}
}

// The prompt is every input token the provider counted.
func TestUsagePrompt(t *testing.T) {
	if got := (llm.Usage{InputTokens: 1, CacheReadTokens: 2, CacheCreationTokens: 4}).Prompt(); got != 7 {
		t.Errorf("Prompt() = %d, want 7", got)
	}
}

// A request go-openai cannot marshal names the tool whose parameters are
// not JSON, not an earlier one that gave none.
func TestInvalidToolSchemaNamed(t *testing.T) {
	req := simpleRequest()
	req.Tools = []llm.ToolSpec{{Name: "plain"}, {Name: "spaces", Parameters: json.RawMessage("  ")}, {Name: "broken", Parameters: json.RawMessage(`{"type":`)}}
	_, err := bodyClient("{}", false, &recorder{}).Complete(context.Background(), req)
	var re *llm.RequestError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), `tool "broken"`) {
		t.Fatalf("Complete = %v, want a RequestError naming tool \"broken\"", err)
	}
}
