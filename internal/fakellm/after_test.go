package fakellm

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestAfterRequestsHoldsTheAnswer: a turn with after_requests answers only
// once the server has received that many requests. In a synctest bubble
// the held request is seen blocked with nothing written, then answered
// when the next request arrives; a client that leaves first gets nothing.
func TestAfterRequestsHoldsTheAnswer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := New(&Script{AnyOrder: true, Turns: []Turn{
			{Match: "first", Content: "held", AfterRequests: 2},
			{Match: "second", Content: "at once"},
		}})
		h := s.Handler()
		held := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			h.ServeHTTP(held, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(msgReq("first"))))
			close(done)
		}()
		synctest.Wait()
		select {
		case <-done:
			t.Fatalf("answered before the second request: %d %s", held.Code, held.Body)
		default:
		}
		if held.Body.Len() != 0 {
			t.Fatalf("wrote %q before the second request", held.Body)
		}
		now := httptest.NewRecorder()
		h.ServeHTTP(now, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(msgReq("second"))))
		if !strings.Contains(now.Body.String(), `"at once"`) {
			t.Fatalf("second: %d %s", now.Code, now.Body)
		}
		<-done
		if held.Code != 200 || !strings.Contains(held.Body.String(), `"held"`) {
			t.Fatalf("held: %d %s", held.Code, held.Body)
		}
	})
}

// TestAfterRequestsClientLeaves: the held answer is dropped when its client
// goes away before the count is reached.
func TestAfterRequestsClientLeaves(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := New(&Script{Turns: []Turn{{Content: "never", AfterRequests: 5}}})
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(msgReq("x")))
		ctx, cancel := context.WithCancel(req.Context())
		done := make(chan struct{})
		go func() {
			s.Handler().ServeHTTP(rec, req.WithContext(ctx))
			close(done)
		}()
		synctest.Wait()
		cancel()
		<-done
		if rec.Body.Len() != 0 {
			t.Fatalf("a client that left got %q", rec.Body)
		}
	})
}

// TestAfterRequestsMaxBoundsTheHold: with after_requests_max_ms the held
// answer goes once that time has passed even though the count was never
// reached, and not before.
func TestAfterRequestsMaxBoundsTheHold(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := New(&Script{Turns: []Turn{{Content: "late", AfterRequests: 3, AfterRequestsMaxMs: 5000}}})
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		start := time.Now()
		go func() {
			s.Handler().ServeHTTP(rec, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(msgReq("x"))))
			close(done)
		}()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("answered at once")
		default:
		}
		<-done
		if waited := time.Since(start); waited != 5*time.Second {
			t.Errorf("answered after %v, want the bound of 5s", waited)
		}
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"late"`) {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	})
}
