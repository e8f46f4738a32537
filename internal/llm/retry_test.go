package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

func TestRetriedStatuses(t *testing.T) {
	cases := []struct {
		name  string
		fault fakellm.Turn
	}{
		{"500", fakellm.Turn{Fault: fakellm.FaultServerError}},
		{"502", fakellm.Turn{Fault: fakellm.FaultBadGateway}},
		{"503", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "503"}},
		{"504", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "504"}},
		{"429 without Retry-After", fakellm.Turn{Fault: fakellm.FaultRateLimit}},
	}
	for _, tc := range cases {
		for _, stream := range []bool{true, false} {
			t.Run(tc.name+map[bool]string{true: "/stream", false: "/json"}[stream], func(t *testing.T) {
				srv := startFake(t, tc.fault, fakellm.Turn{Content: "recovered"})
				rec := &recorder{}
				resp, err := newClient(srv, rec, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
				if err != nil {
					t.Fatal(err)
				}
				if resp.Message.Content != "recovered" || resp.Attempts != 2 {
					t.Errorf("content %q attempts %d", resp.Message.Content, resp.Attempts)
				}
				// Equal jitter with rand 0.5: base 1 s → 0.5 s + 0.25 s.
				if w := rec.Waits(); !reflect.DeepEqual(w, []time.Duration{750 * time.Millisecond}) {
					t.Errorf("waits = %v", w)
				}
				if r := rec.Retries(); len(r) != 1 {
					t.Errorf("OnRetry calls = %v", r)
				}
				if n := len(srv.Requests()); n != 2 {
					t.Errorf("%d requests", n)
				}
			})
		}
	}
}

func TestRetryAfter(t *testing.T) {
	base := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	cases := []struct {
		arg  string
		want time.Duration
	}{
		{"2", 2 * time.Second},
		{"0", 0},
		{"3600", llm.MaxRetryAfter},
		{base.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second},
		{base.Add(-time.Hour).Format(http.TimeFormat), 0},
		{base.Add(time.Hour).Format(http.TimeFormat), llm.MaxRetryAfter},
		{"soon", 750 * time.Millisecond}, // unreadable: backoff
	}
	for _, tc := range cases {
		t.Run(tc.arg, func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultRateLimit, FaultArg: tc.arg}, fakellm.Turn{Content: "ok"})
			rec := &recorder{}
			c := newClient(srv, rec, func(o *llm.Options) { o.Now = func() time.Time { return base } })
			resp, err := c.Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Attempts != 2 {
				t.Errorf("attempts %d", resp.Attempts)
			}
			if w := rec.Waits(); !reflect.DeepEqual(w, []time.Duration{tc.want}) {
				t.Errorf("waits = %v, want [%v]", w, tc.want)
			}
			var se *llm.StatusError
			if r := rec.Retries(); len(r) != 1 || !errors.As(r[0], &se) || se.Status != 429 || !errors.Is(r[0], llm.ErrRateLimited) {
				t.Errorf("retry errors = %v", r)
			}
		})
	}
}

func TestBackoffDoubles(t *testing.T) {
	srv := startFake(t,
		fakellm.Turn{Fault: fakellm.FaultServerError},
		fakellm.Turn{Fault: fakellm.FaultServerError},
		fakellm.Turn{Fault: fakellm.FaultServerError},
		fakellm.Turn{Content: "fourth time lucky"},
	)
	rec := &recorder{}
	resp, err := newClient(srv, rec, func(o *llm.Options) { o.Rand = func() float64 { return 0 } }).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Attempts != 4 {
		t.Errorf("attempts = %d", resp.Attempts)
	}
	// rand 0: the floor of equal jitter, half of 1 s, 2 s, 4 s.
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}
	if w := rec.Waits(); !reflect.DeepEqual(w, want) {
		t.Errorf("waits = %v, want %v", w, want)
	}
}

func TestNotRetried(t *testing.T) {
	cases := []struct {
		name  string
		turn  fakellm.Turn
		check func(t *testing.T, err error)
	}{
		{"400", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "400"}, func(t *testing.T, err error) {
			var se *llm.StatusError
			if !errors.As(err, &se) || se.Status != 400 {
				t.Fatalf("err = %#v", err)
			}
			if want := "llm: Bad Request (status 400): fakellm: scripted HTTP 400 (Bad Request)"; err.Error() != want {
				t.Errorf("text = %q, want %q", err.Error(), want)
			}
		}},
		{"401", fakellm.Turn{Fault: fakellm.FaultUnauthorized}, func(t *testing.T, err error) {
			var ae *llm.AuthError
			if !errors.As(err, &ae) || ae.Status != 401 || ae.KeySource != "ODEK_API_KEY" || !errors.Is(err, llm.ErrAuth) {
				t.Fatalf("err = %#v", err)
			}
			if want := "llm: authentication failed (HTTP 401) using the key from ODEK_API_KEY; check that the key is valid for this endpoint"; err.Error() != want {
				t.Errorf("text = %q", err.Error())
			}
		}},
		{"403", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "403"}, func(t *testing.T, err error) {
			var ae *llm.AuthError
			if !errors.As(err, &ae) || ae.Status != 403 || !strings.Contains(err.Error(), "ODEK_API_KEY") {
				t.Fatalf("err = %v", err)
			}
		}},
		{"404", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "404"}, func(t *testing.T, err error) {
			var se *llm.StatusError
			if !errors.As(err, &se) || se.Status != 404 {
				t.Fatalf("err = %v", err)
			}
			want := regexp.MustCompile(`^llm: Not Found \(status 404\) from http://127\.0\.0\.1:\d+/v1/chat/completions for model "test-model": ` +
				`fakellm: scripted HTTP 404 \(Not Found\): the model .test-model. does not exist or you do not have access to it; check base_url and model$`)
			if !want.MatchString(err.Error()) {
				t.Errorf("text = %q", err.Error())
			}
		}},
		{"422", fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "422"}, func(t *testing.T, err error) {
			var se *llm.StatusError
			if !errors.As(err, &se) || se.Status != 422 {
				t.Fatalf("err = %v", err)
			}
		}},
		{"context length", fakellm.Turn{Fault: fakellm.FaultContextLength}, func(t *testing.T, err error) {
			var ce *llm.ContextLengthError
			if !errors.As(err, &ce) || ce.Status != 400 || !errors.Is(err, llm.ErrContextLength) {
				t.Fatalf("err = %#v", err)
			}
			if !strings.Contains(err.Error(), "maximum context length is 8192") {
				t.Errorf("text = %q", err.Error())
			}
		}},
		{"not a stream", fakellm.Turn{Fault: fakellm.FaultMalformedSSE, FaultArg: "<html>Welcome to nginx!</html>\n"}, func(t *testing.T, err error) {
			var me *llm.MalformedResponseError
			if !errors.As(err, &me) || me.What != "SSE stream" || !errors.Is(err, llm.ErrMalformedResponse) {
				t.Fatalf("err = %#v", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startFake(t, tc.turn, fakellm.Turn{Content: "must not be reached"})
			rec := &recorder{}
			resp, err := newClient(srv, rec).Complete(context.Background(), simpleRequest())
			if err == nil {
				t.Fatalf("no error; resp %+v", resp)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error leaks the key: %v", err)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d attempts, want exactly 1", n)
			}
			if len(rec.Waits()) != 0 {
				t.Errorf("waited: %v", rec.Waits())
			}
			tc.check(t, err)
		})
	}
}

func TestAuthErrorWithoutKey(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultUnauthorized})
	c := newClient(srv, &recorder{}, func(o *llm.Options) { o.APIKey, o.KeySource = "", "" })
	_, err := c.Complete(context.Background(), simpleRequest())
	if err == nil || !strings.Contains(err.Error(), "no API key is configured") {
		t.Fatalf("err = %v", err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

// A bad SSE data line, or a JSON body cut short, is retried like a dropped
// stream; a body that is not the protocol at all (an HTML page) is not.
func TestMalformedRetried(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "json"}[stream], func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultMalformedSSE}, fakellm.Turn{Content: "recovered"})
			rec := &recorder{}
			resp, err := newClient(srv, rec, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "recovered" || resp.Attempts != 2 {
				t.Errorf("content %q attempts %d", resp.Message.Content, resp.Attempts)
			}
			var me *llm.MalformedResponseError
			what := map[bool]string{true: "SSE chunk", false: "response JSON"}[stream]
			if r := rec.Retries(); len(r) != 1 || !errors.As(r[0], &me) || me.What != what || !me.Transient {
				t.Errorf("retried errors = %v", r)
			}
		})
	}
	t.Run("html", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultMalformedSSE, FaultArg: "<html>502</html>"}, fakellm.Turn{Content: "unused"})
		_, err := newClient(srv, &recorder{}, nonStream).Complete(context.Background(), simpleRequest())
		var me *llm.MalformedResponseError
		if !errors.As(err, &me) || me.What != "response JSON" || me.Transient {
			t.Fatalf("err = %#v", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d attempts", n)
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultMalformedSSE}, fakellm.Turn{Fault: fakellm.FaultMalformedSSE})
		_, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.MaxAttempts = 2 }).Complete(context.Background(), simpleRequest())
		if err == nil || !strings.Contains(err.Error(), "retry exhausted (2 attempts) calling ") || !strings.Contains(err.Error(), ": malformed SSE chunk: ") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestRetryExhausted(t *testing.T) {
	t.Run("500", func(t *testing.T) {
		var turns []fakellm.Turn
		for range 5 {
			turns = append(turns, fakellm.Turn{Fault: fakellm.FaultServerError})
		}
		srv := startFake(t, turns...)
		rec := &recorder{}
		_, err := newClient(srv, rec).Complete(context.Background(), simpleRequest())
		var re *llm.RetryError
		if !errors.As(err, &re) || re.Attempts != 4 {
			t.Fatalf("err = %#v", err)
		}
		want := "llm: retry exhausted (4 attempts) calling " + srv.URL() + "/chat/completions: Internal Server Error (status 500): The server had an error while processing your request (fakellm)."
		if err.Error() != want {
			t.Errorf("text:\n got %q\nwant %q", err.Error(), want)
		}
		if n := len(srv.Requests()); n != 4 {
			t.Errorf("%d requests", n)
		}
		if w := rec.Waits(); len(w) != 3 {
			t.Errorf("waits = %v", w)
		}
		if errors.Is(err, llm.ErrRateLimited) {
			t.Error("500s classified as rate limited")
		}
	})
	t.Run("429 is rate_limited", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultRateLimit, FaultArg: "1"}, fakellm.Turn{Fault: fakellm.FaultRateLimit, FaultArg: "1"})
		_, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.MaxAttempts = 2 }).Complete(context.Background(), simpleRequest())
		var re *llm.RetryError
		if !errors.As(err, &re) || re.Attempts != 2 || !errors.Is(err, llm.ErrRateLimited) {
			t.Fatalf("err = %v", err)
		}
		if !strings.HasPrefix(err.Error(), "llm: retry exhausted (2 attempts) calling "+srv.URL()+"/chat/completions: Too Many Requests (status 429): Rate limit reached") {
			t.Errorf("text = %q", err.Error())
		}
	})
	t.Run("script exhausted message reaches the caller", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Content: "only one"})
		c := newClient(srv, &recorder{}, func(o *llm.Options) { o.MaxAttempts = 1 })
		if _, err := c.Complete(context.Background(), simpleRequest()); err != nil {
			t.Fatal(err)
		}
		_, err := c.Complete(context.Background(), simpleRequest())
		if err == nil || !strings.Contains(err.Error(), "fakellm: script exhausted after 1 turns") || !strings.Contains(err.Error(), "(1 attempt)") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("match failure", func(t *testing.T) {
		srv := startFake(t, fakellm.Turn{Match: "tool result", Content: "x"})
		_, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.MaxAttempts = 1 }).Complete(context.Background(), simpleRequest())
		if err == nil || !strings.Contains(err.Error(), `fakellm: turn 1 expected "tool result" in last message, got "hello"`) {
			t.Fatalf("err = %v", err)
		}
		if srv.TurnsUsed() != 0 {
			t.Errorf("a failed match consumed the turn")
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		rec := &recorder{}
		c := llm.New(llm.Options{BaseURL: "http://" + addr + "/v1", Stream: true, Sleep: rec.sleep, MaxAttempts: 3})
		_, err = c.Complete(context.Background(), simpleRequest())
		var re *llm.RetryError
		var ne *llm.NetworkError
		if !errors.As(err, &re) || re.Attempts != 3 || !errors.As(err, &ne) || ne.MidStream {
			t.Fatalf("err = %#v", err)
		}
	})
}

func TestDropMidStreamRetried(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "json"}[stream], func(t *testing.T) {
			srv := startFake(t,
				fakellm.Turn{Fault: fakellm.FaultDropMidStream, Content: "this will be cut off somewhere in the middle", ChunkSize: 4},
				fakellm.Turn{Content: "complete answer"},
			)
			rec := &recorder{}
			resp, err := newClient(srv, rec, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "complete answer" || resp.Attempts != 2 {
				t.Errorf("content %q attempts %d", resp.Message.Content, resp.Attempts)
			}
			r := rec.Retries()
			var ne *llm.NetworkError
			if len(r) != 1 || !errors.As(r[0], &ne) || !ne.MidStream {
				t.Errorf("retry errors = %v", r)
			}
		})
	}
}

func TestCancelDuringBackoffReturnsPromptly(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultRateLimit, FaultArg: "30"}, fakellm.Turn{Content: "too late"})
	// The real sleep: the wait must be cut by ctx.
	c := llm.New(llm.Options{BaseURL: srv.URL(), Stream: true})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Complete(ctx, simpleRequest())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}

func TestCancelCauseIsKept(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultHang})
	c := newClient(srv, &recorder{})
	budget := errors.New("execution budget exceeded: runtime")
	ctx, cancel := context.WithTimeoutCause(context.Background(), 100*time.Millisecond, budget)
	defer cancel()
	start := time.Now()
	_, err := c.Complete(ctx, simpleRequest())
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, budget) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestProviderErrorInStreamRetried(t *testing.T) {
	rec := &recorder{}
	c := bodyClient("data: {\"error\":{\"message\":\"Overloaded\",\"type\":\"overloaded_error\"}}\n\n", true, rec)
	_, err := c.Complete(context.Background(), simpleRequest())
	var re *llm.RetryError
	var pe *llm.ProviderError
	if !errors.As(err, &re) || re.Attempts != 2 || !errors.As(err, &pe) || pe.Message != "Overloaded" {
		t.Fatalf("err = %#v", err)
	}

	c = bodyClient("data: {\"error\":{\"message\":\"prompt is too long: input length 300000 exceeds\",\"type\":\"invalid_request_error\"}}\n\n", true, rec)
	_, err = c.Complete(context.Background(), simpleRequest())
	if !errors.Is(err, llm.ErrContextLength) {
		t.Fatalf("err = %v", err)
	}
}

// TestConcurrentRetryAfter checks that Retry-After is captured per request
// when calls share a client.
func TestConcurrentRetryAfter(t *testing.T) {
	type key struct{}
	var mu sync.Mutex
	bad := []string{}
	tr := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		var body struct {
			Model string `json:"model"`
		}
		json.NewDecoder(req.Body).Decode(&body)
		// Model "m<N>": Retry-After N seconds.
		return &http.Response{
			StatusCode: 429, Status: "429 Too Many Requests",
			Header:  http.Header{"Retry-After": {strings.TrimPrefix(body.Model, "m")}, "Content-Type": {"application/json"}},
			Body:    nopBody(`{"error":{"message":"slow down","type":"requests"}}`),
			Request: req,
		}, nil
	})
	c := llm.New(llm.Options{
		BaseURL: "http://fake.invalid/v1", Stream: true, MaxAttempts: 3,
		HTTPClient: &http.Client{Transport: tr},
		Sleep: func(ctx context.Context, d time.Duration) error {
			want := ctx.Value(key{}).(time.Duration)
			if d != want {
				mu.Lock()
				bad = append(bad, d.String()+"!="+want.String())
				mu.Unlock()
			}
			return nil
		},
	})
	var wg sync.WaitGroup
	for i := 1; i <= 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.WithValue(context.Background(), key{}, time.Duration(i)*time.Second)
			req := simpleRequest()
			req.Model = "m" + strconv.Itoa(i)
			_, err := c.Complete(ctx, req)
			if !errors.Is(err, llm.ErrRateLimited) {
				mu.Lock()
				bad = append(bad, "err: "+err.Error())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("mismatches: %v", bad)
	}
}

func nopBody(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
