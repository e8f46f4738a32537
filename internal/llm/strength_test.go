package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

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
