package fakellm

import (
	"strings"
	"sync"
	"testing"
)

func msgReq(content string) string {
	return `{"model":"m","messages":[{"role":"user","content":"` + content + `"}]}`
}

func TestAnyOrderMatchesTurnsOutOfOrder(t *testing.T) {
	srv, err := Start(&Script{AnyOrder: true, Turns: []Turn{
		{Match: "alpha", Content: "A"}, {Match: "beta", Content: "B"}, {Content: "any"},
	}}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, c := range []struct{ in, want string }{{"task beta", `"B"`}, {"task alpha", `"A"`}, {"gamma", `"any"`}} {
		resp, body, err := post(t, srv, msgReq(c.in))
		if err != nil || resp.StatusCode != 200 || !strings.Contains(string(body), c.want) {
			t.Fatalf("%s: %v %s", c.in, err, body)
		}
	}
	resp, body, _ := post(t, srv, msgReq("alpha"))
	if resp.StatusCode != 500 || !strings.Contains(string(body), "script exhausted after 3 turns") {
		t.Fatalf("after all turns: %d %s", resp.StatusCode, body)
	}
	if got := srv.Requests(); got[0].Turn != 2 || got[1].Turn != 1 || got[2].Turn != 3 || srv.TurnsUsed() != 3 {
		t.Fatalf("turns: %d %d %d used %d", got[0].Turn, got[1].Turn, got[2].Turn, srv.TurnsUsed())
	}
}

func TestAnyOrderNoMatch(t *testing.T) {
	srv, _ := Start(&Script{AnyOrder: true, Turns: []Turn{{Match: "alpha", Content: "A"}}}, "")
	defer srv.Close()
	resp, body, _ := post(t, srv, msgReq("beta"))
	if resp.StatusCode != 500 || !strings.Contains(string(body), `fakellm: no unused turn matches the last message "beta"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

func TestMaxInFlight(t *testing.T) {
	const n = 4
	turns := make([]Turn, n)
	for i := range turns {
		turns[i] = Turn{Content: "x", DelayMs: 200}
	}
	srv := start(t, turns...)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := post(t, srv, plainReq); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := srv.MaxInFlight(); got < 2 || got > n {
		t.Fatalf("MaxInFlight = %d", got)
	}
}

func TestParseScriptAnyOrder(t *testing.T) {
	s, err := ParseScript([]byte(`{"any_order": true, "turns": [{"content": "a"}]}`))
	if err != nil || !s.AnyOrder {
		t.Fatalf("%+v %v", s, err)
	}
}

// TestMatchModel: a turn with match_model answers only its model's
// requests: in any order the other model's turn is taken, in order the
// request is refused with a 500 that names both.
func TestMatchModel(t *testing.T) {
	s, err := ParseScript([]byte(`{"any_order": true, "turns": [
		{"match_model": "big", "fault": "status", "fault_arg": 503},
		{"match_model": "small", "content": "from small"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := Start(s, "")
	defer srv.Close()
	resp, body, _ := post(t, srv, `{"model":"small","messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "from small") {
		t.Fatalf("small: %d %s", resp.StatusCode, body)
	}
	resp, body, _ = post(t, srv, `{"model":"big","messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 503 {
		t.Fatalf("big: %d %s", resp.StatusCode, body)
	}
	inOrder, _ := Start(&Script{Turns: []Turn{{MatchModel: "big", Content: "B"}}}, "")
	defer inOrder.Close()
	resp, body, _ = post(t, inOrder, msgReq("x"))
	if resp.StatusCode != 500 || !strings.Contains(string(body), `fakellm: turn 1 expected model "big", got "m"`) {
		t.Fatalf("in order: %d %s", resp.StatusCode, body)
	}
}
