package loop

import (
	"context"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

// Each way a real provider fails reaches run_failed with its error_class,
// through the real client against the fake server.
func TestProviderFailureClassesInEvents(t *testing.T) {
	hang := fakellm.Turn{Fault: fakellm.FaultHang}
	cases := []struct {
		name  string
		turns []fakellm.Turn
		class string
	}{
		{"unauthorized", []fakellm.Turn{{Fault: fakellm.FaultUnauthorized}}, "provider_auth"},
		{"rate limited", []fakellm.Turn{{Fault: fakellm.FaultRateLimit, FaultArg: "0"}, {Fault: fakellm.FaultRateLimit, FaultArg: "0"}}, "rate_limited"},
		{"server error", []fakellm.Turn{{Fault: fakellm.FaultServerError}, {Fault: fakellm.FaultServerError}}, "provider_error"},
		{"unknown model", []fakellm.Turn{{Fault: fakellm.FaultStatus, FaultArg: "404"}}, "provider_error"},
		{"timeout", []fakellm.Turn{hang, hang}, "provider_error"},
		{"malformed", []fakellm.Turn{{Fault: fakellm.FaultMalformedSSE}, {Fault: fakellm.FaultMalformedSSE}}, "provider_error"},
		{"content filter", []fakellm.Turn{{FinishReason: "content_filter"}}, "provider_error"},
		{"empty answer", []fakellm.Turn{{Content: ""}, {Content: ""}}, "provider_error"},
	}
	for _, tc := range cases {
		for _, wire := range []string{llm.WireChat, llm.WireResponses} {
			t.Run(tc.name+"/"+wire, func(t *testing.T) {
				providerFailure(t, wire, tc.turns, tc.class)
			})
		}
	}
	t.Run("no responses endpoint", func(t *testing.T) {
		srv, err := fakellm.Start(&fakellm.Script{ChatOnly: true, Turns: []fakellm.Turn{{Content: "x"}}}, "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		_, evs, err := runWithEvents(t, Options{Model: llm.New(llm.Options{BaseURL: srv.URL(), WireAPI: llm.WireResponses}), ModelName: "m"}, "q")
		if last := lastEvent(t, evs); err == nil || last.Data["error_class"] != "setup_error" {
			t.Errorf("err %v, last event %v", err, last.Data)
		}
	})
}

func providerFailure(t *testing.T, wire string, turns []fakellm.Turn, class string) {
	srv, err := fakellm.Start(&fakellm.Script{Turns: turns}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	model := llm.New(llm.Options{
		BaseURL: srv.URL(), APIKey: "k", KeySource: "ODEK_API_KEY", Stream: true, MaxAttempts: 2, WireAPI: wire,
		Timeouts: llm.Timeouts{FirstByte: 100 * time.Millisecond},
		Sleep:    func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	_, evs, err := runWithEvents(t, Options{Model: model, ModelName: "m"}, "q")
	if err == nil {
		t.Fatal("run succeeded")
	}
	last := lastEvent(t, evs)
	if last.Type != events.RunFailed || last.Data["error_class"] != class {
		t.Errorf("last event %s %v, want run_failed with %s (err %v)", last.Type, last.Data, class, err)
	}
}
