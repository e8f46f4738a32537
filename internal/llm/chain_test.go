package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

// chainServer overloads "big" (429, then 503 to the end of its retries)
// and answers for "small", in any order: each model takes its own turns.
func chainServer(t *testing.T, smallTurns int) *fakellm.Server {
	t.Helper()
	turns := []fakellm.Turn{
		{MatchModel: "big", Fault: fakellm.FaultRateLimit},
		{MatchModel: "big", Fault: fakellm.FaultStatus, FaultArg: "503"},
		{MatchModel: "big", Fault: fakellm.FaultStatus, FaultArg: "503"},
		{MatchModel: "big", Fault: fakellm.FaultStatus, FaultArg: "503"},
	}
	for range smallTurns {
		turns = append(turns, fakellm.Turn{MatchModel: "small", Content: "from small"})
	}
	srv, err := fakellm.Start(&fakellm.Script{AnyOrder: true, Turns: turns}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestChainFallsBack: after the first model's retries are spent on 429 and
// 503, the chain says so once and moves to the next model, which answers;
// the next request goes straight to it, and each response names its model.
func TestChainFallsBack(t *testing.T) {
	t.Parallel()
	srv := chainServer(t, 2)
	rec := &recorder{}
	var switches []llm.ModelSwitch
	chain := llm.NewChain(newClient(srv, rec), []string{"big", "small", "small", ""}, func(s llm.ModelSwitch) {
		switches = append(switches, s)
	})
	for i := range 2 {
		resp, err := chain.Complete(context.Background(), simpleRequest())
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if resp.Message.Content != "from small" || resp.Model != "small" {
			t.Errorf("request %d: %q from %q", i, resp.Message.Content, resp.Model)
		}
	}
	var models []string
	for _, r := range srv.Requests() {
		models = append(models, r.Model)
	}
	if got := strings.Join(models, ","); got != "big,big,big,big,small,small" {
		t.Errorf("requests went to %s", got)
	}
	if len(switches) != 1 || switches[0].From != "big" || switches[0].To != "small" {
		t.Fatalf("switches = %+v", switches)
	}
	sw := switches[0]
	if n := sw.Notice(); n != `model "big" failed (HTTP 503 after 4 attempts); using the fallback model "small" for the rest of the run` {
		t.Errorf("notice = %q", n)
	}
	if d := sw.Data(); d["from"] != "big" || d["to"] != "small" || d["status"] != 503 || d["error_class"] != "provider_error" ||
		!strings.Contains(d["error"].(string), "retry exhausted (4 attempts)") {
		t.Errorf("event data = %v", d)
	}
	if m := chain.Models(); strings.Join(m, ",") != "big,small" || chain.Model() != "small" {
		t.Errorf("Models() = %q, Model() = %q", m, chain.Model())
	}
}

// TestChainNotForEveryError: an authentication failure, a bad request or a
// context-length error is the model's answer on any model: no fallback,
// the error as it was, one request.
func TestChainNotForEveryError(t *testing.T) {
	t.Parallel()
	for _, fault := range []fakellm.Turn{
		{Fault: fakellm.FaultUnauthorized},
		{Fault: fakellm.FaultStatus, FaultArg: "400"},
		{Fault: fakellm.FaultContextLength},
		{Fault: fakellm.FaultStatus, FaultArg: "404"},
	} {
		srv := startFake(t, fault, fakellm.Turn{Content: "never"})
		called := false
		chain := llm.NewChain(newClient(srv, &recorder{}), []string{"a", "b"}, func(llm.ModelSwitch) { called = true })
		_, err := chain.Complete(context.Background(), simpleRequest())
		if err == nil || called || len(srv.Requests()) != 1 || llm.FallbackWorthy(err) {
			t.Errorf("%s %s: err %v, switched %v, %d requests", fault.Fault, fault.FaultArg, err, called, len(srv.Requests()))
		}
	}
}

// TestChainLastModelFails: when every model is overloaded the last one's
// error is the call's, after one notice per move.
func TestChainLastModelFails(t *testing.T) {
	t.Parallel()
	turns := make([]fakellm.Turn, 8)
	for i := range turns {
		turns[i] = fakellm.Turn{Fault: fakellm.FaultStatus, FaultArg: "529"}
	}
	srv := startFake(t, turns...)
	var moves []string
	chain := llm.NewChain(newClient(srv, &recorder{}), []string{"a", "b", "c"}, func(s llm.ModelSwitch) {
		moves = append(moves, s.From+">"+s.To)
	})
	_, err := chain.Complete(context.Background(), simpleRequest())
	var se *llm.StatusError
	if !errors.As(err, &se) || se.Status != 529 || strings.Join(moves, " ") != "a>b b>c" || len(srv.Requests()) != 3 {
		t.Errorf("err %v, moves %q, %d requests", err, moves, len(srv.Requests()))
	}
	if chain.Model() != "c" {
		t.Errorf("model in use %q", chain.Model())
	}
}

// TestChainConcurrent: calls failing at once on one model move the chain
// once, and each goes on with the next model.
func TestChainConcurrent(t *testing.T) {
	t.Parallel()
	const n = 4
	var turns []fakellm.Turn
	for range n {
		turns = append(turns, fakellm.Turn{MatchModel: "a", Fault: fakellm.FaultStatus, FaultArg: "529", AfterRequests: n},
			fakellm.Turn{MatchModel: "b", Content: "ok"})
	}
	srv, err := fakellm.Start(&fakellm.Script{AnyOrder: true, Turns: turns}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var mu sync.Mutex
	moves := 0
	chain := llm.NewChain(newClient(srv, &recorder{}), []string{"a", "b"}, func(llm.ModelSwitch) { mu.Lock(); moves++; mu.Unlock() })
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, err := chain.Complete(context.Background(), simpleRequest()); err != nil || resp.Model != "b" {
				t.Errorf("%v %v", resp, err)
			}
		}()
	}
	wg.Wait()
	if moves != 1 {
		t.Errorf("the chain moved %d times", moves)
	}
}

func TestFallbackWorthy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&llm.StatusError{Status: 429}, true},
		{&llm.StatusError{Status: 503}, true},
		{&llm.StatusError{Status: 529}, true},
		{&llm.RetryError{Attempts: 4, Err: &llm.StatusError{Status: 502}}, true},
		{&llm.RetryError{Attempts: 4, Err: &llm.ProviderError{Message: "overloaded"}}, true},
		{&llm.RetryError{Attempts: 2, Err: &llm.TimeoutError{Phase: llm.PhaseFirstByte}}, true},
		{&llm.RetryError{Attempts: 4, Err: &llm.TimeoutError{Phase: llm.PhaseConnect}}, false},
		{&llm.RetryError{Attempts: 4, Err: &llm.NetworkError{}}, false},
		{&llm.StatusError{Status: 501}, false},
		{&llm.StatusError{Status: 400}, false},
		{&llm.StatusError{Status: http.StatusNotFound}, false},
		{&llm.AuthError{Status: 401}, false},
		{&llm.ContextLengthError{Status: 400}, false},
		{&llm.MalformedResponseError{What: "x", Err: errors.New("y")}, false},
		{context.Canceled, false},
		{nil, false},
	} {
		if got := llm.FallbackWorthy(tc.err); got != tc.want {
			t.Errorf("FallbackWorthy(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
