package policy

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/risk"
)

func call(tool, what string, inspect bool, cs ...risk.Class) Call {
	s := risk.Of(cs...)
	return Call{Tool: tool, Assessed: true, Args: []byte(`{}`),
		Risk: risk.Assessment{Class: s.Max(), Set: s, What: what, Reason: "because", Inspect: inspect}}
}

// scripted answers prompts from a list and records the questions.
type scripted struct {
	mu      sync.Mutex
	answers []Answer
	asked   []Question
}

func (s *scripted) Ask(_ context.Context, q Question) (Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, q)
	if len(s.asked) > len(s.answers) {
		return AnswerDeny, nil
	}
	return s.answers[len(s.asked)-1], nil
}

func mustNew(t *testing.T, o Options) *Policy {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDecisions(t *testing.T) {
	shell := func(what string, cs ...risk.Class) Call {
		return call("shell", what, cs[0] == risk.Safe && len(cs) == 1, cs...)
	}
	tests := []struct {
		name  string
		cfg   Config
		tty   bool
		c     Call
		allow bool
		class risk.Class
	}{
		{"safe runs", Config{}, false, shell("ls", risk.Safe), true, risk.Safe},
		{"local_write runs", Config{}, false, shell("rm x", risk.LocalWrite), true, risk.LocalWrite},
		{"no tty: network denied", Config{}, false, shell("curl x", risk.NetworkEgress), false, risk.NetworkEgress},
		{"no tty: system_write denied", Config{}, false, shell("sudo ls", risk.SystemWrite), false, risk.SystemWrite},
		{"destructive denied even on a tty", Config{}, true, shell("rm -rf /", risk.Destructive), false, risk.Destructive},
		{"unknown denied", Config{}, true, shell("foo", risk.Unknown), false, risk.Unknown},
		{"blocked denied", Config{}, true, shell(":(){ :|:& };:", risk.Blocked), false, risk.Blocked},
		{"class allowed for CI", Config{Classes: map[string]string{"network_egress": "allow"}}, false, shell("curl x", risk.NetworkEgress), true, risk.NetworkEgress},
		{"strictest class wins", Config{Classes: map[string]string{"network_egress": "allow"}}, false, shell("curl x | foo", risk.NetworkEgress, risk.Unknown), false, risk.Unknown},
		{"a denied lower class wins over an allowed higher one", Config{Classes: map[string]string{"network_egress": "allow", "local_write": "deny"}}, false, shell("curl -o f x", risk.LocalWrite, risk.NetworkEgress), false, risk.LocalWrite},
		{"blocked beats allow", Config{Classes: map[string]string{"blocked": "allow"}, Allowlist: []string{"dd of=/dev/sda"}}, false, shell("dd of=/dev/sda", risk.Blocked), false, risk.Blocked},
		{"allowlist exact", Config{Allowlist: []string{"curl https://x"}}, false, shell("curl https://x", risk.NetworkEgress), true, risk.NetworkEgress},
		{"allowlist is exact", Config{Allowlist: []string{"curl https://x"}}, false, shell("curl https://x; curl y", risk.NetworkEgress), false, risk.NetworkEgress},
		{"allowlist tool and path", Config{Allowlist: []string{"write_file /etc/motd"}}, false, call("write_file", "/etc/motd", false, risk.SystemWrite), true, risk.SystemWrite},
		{"denylist beats allowlist", Config{Allowlist: []string{"ls"}, Denylist: []string{"ls"}}, false, shell("ls", risk.Safe), false, risk.Safe},
		{"denylist a whole tool", Config{Denylist: []string{"shell"}}, false, shell("ls", risk.Safe), false, risk.Safe},
		{"unknown may prompt: non_interactive allow", Config{Classes: map[string]string{"unknown": "prompt"}, NonInteractive: "allow"}, false, shell("foo", risk.Unknown), true, risk.Unknown},
		{"non_interactive allow", Config{NonInteractive: "allow"}, false, shell("curl x", risk.NetworkEgress), true, risk.NetworkEgress},
		{"read_only lets inspection run", Config{NonInteractive: "read_only"}, false, call("read_file", "/etc/hosts", true, risk.SystemWrite), true, risk.SystemWrite},
		{"read_only stops local writes", Config{NonInteractive: "read_only"}, false, shell("rm x", risk.LocalWrite), false, risk.LocalWrite},
		{"read_only stops egress", Config{NonInteractive: "read_only"}, false, shell("curl x", risk.NetworkEgress), false, risk.NetworkEgress},
		{"read_only: safe runs", Config{NonInteractive: "read_only"}, false, shell("ls", risk.Safe), true, risk.Safe},
		{"action allow answers prompts", Config{Action: "allow"}, false, shell("curl x", risk.NetworkEgress), true, risk.NetworkEgress},
		{"action deny answers prompts", Config{Action: "deny", NonInteractive: "allow"}, true, shell("curl x", risk.NetworkEgress), false, risk.NetworkEgress},
		{"MCP tools run (approved at registration)", Config{}, false, Call{Tool: "gh__search"}, true, risk.Unknown},
		{"MCP tool on the denylist", Config{Denylist: []string{"gh__delete_repo"}}, false, Call{Tool: "gh__delete_repo"}, false, risk.Unknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Config: tc.cfg}
			ask := &scripted{answers: []Answer{AnswerOnce}}
			if tc.tty {
				o.Asker = ask
			}
			var denied []Outcome
			o.OnDeny = func(oc Outcome) { denied = append(denied, oc) }
			err := mustNew(t, o).Check(context.Background(), tc.c)
			if (err == nil) != tc.allow {
				t.Fatalf("Check = %v, want allow=%v", err, tc.allow)
			}
			if err == nil {
				return
			}
			var de *DeniedError
			if !errors.As(err, &de) || !de.Denied() || de.Class != tc.class {
				t.Fatalf("err = %#v, want a denial of class %s", err, tc.class)
			}
			if len(denied) != 1 || denied[0].Why == "" {
				t.Fatalf("OnDeny saw %+v", denied)
			}
		})
	}
}

func TestDenialText(t *testing.T) {
	p := mustNew(t, Options{})
	err := p.Check(context.Background(), call("shell", "curl -s https://example.com\n\x1b[2J", false, risk.NetworkEgress))
	want := `operation denied by configuration: shell "curl -s https://example.com  [2J" (risk: network_egress)`
	if err == nil || err.Error() != want {
		t.Fatalf("denial reads\n%v\nwant\n%s", err, want)
	}
}

func TestPromptAnswers(t *testing.T) {
	ask := &scripted{answers: []Answer{AnswerDeny, AnswerOnce, AnswerTrustClass}}
	p := mustNew(t, Options{Asker: ask, Dir: "/ws"})
	curl := call("shell", "curl x", false, risk.NetworkEgress)
	ctx := context.Background()
	if err := p.Check(ctx, curl); err == nil {
		t.Fatal("deny at the prompt ran the call")
	}
	if err := p.Check(ctx, curl); err != nil {
		t.Fatalf("approve once: %v", err)
	}
	if err := p.Check(ctx, curl); err != nil {
		t.Fatalf("trust: %v", err)
	}
	for range 3 { // trusted: nobody is asked again for this class
		if err := p.Check(ctx, call("shell", "wget y", false, risk.NetworkEgress)); err != nil {
			t.Fatalf("trusted class: %v", err)
		}
	}
	if len(ask.asked) != 3 {
		t.Fatalf("asked %d times, want 3", len(ask.asked))
	}
	if q := ask.asked[0]; q.Tool != "shell" || q.What != "curl x" || q.Class != risk.NetworkEgress || q.Dir != "/ws" {
		t.Fatalf("question = %+v", q)
	}
	// Trusting network_egress does not cover a call that also installs.
	if err := p.Check(ctx, call("shell", "npm i", false, risk.NetworkEgress, risk.Install)); err == nil || len(ask.asked) != 4 {
		t.Fatalf("a call with an untrusted class was not asked about: %v, %d", err, len(ask.asked))
	}
}

// After three approvals of one class within a minute the prompt shows the
// full details first.
func TestFriction(t *testing.T) {
	now := time.Unix(1000, 0)
	ask := &scripted{answers: []Answer{AnswerOnce, AnswerOnce, AnswerOnce, AnswerOnce, AnswerOnce}}
	p := mustNew(t, Options{Asker: ask, Now: func() time.Time { return now }})
	c := call("shell", "curl x", false, risk.NetworkEgress)
	for range 4 {
		if err := p.Check(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	if ask.asked[2].Details || !ask.asked[3].Details {
		t.Fatalf("details on prompts: %v %v, want only the 4th", ask.asked[2].Details, ask.asked[3].Details)
	}
	now = now.Add(2 * time.Minute)
	_ = p.Check(context.Background(), c)
	if ask.asked[4].Details {
		t.Fatal("friction outlived its minute")
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []Config{{Action: "maybe"}, {NonInteractive: "prompt"}, {Classes: map[string]string{"safe": "sometimes"}}} {
		if _, err := New(Options{Config: cfg}); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
}

func TestTerminalAsker(t *testing.T) {
	q := Question{Tool: "shell", What: "curl x\x1b]52;c;AAAA\x07", Class: risk.NetworkEgress, Reason: "curl reaches the network",
		Classes: []risk.Class{risk.NetworkEgress}, Args: []byte(`{"command":"curl x"}`), Dir: "/ws"}
	for _, tc := range []struct {
		in   string
		want Answer
	}{{"a\n", AnswerOnce}, {"t\n", AnswerTrustClass}, {"d\n", AnswerDeny}, {"\n", AnswerDeny}, {"", AnswerDeny}, {"s\na\n", AnswerOnce}} {
		var out strings.Builder
		term := NewTerminal(strings.NewReader(tc.in), &out)
		got, err := term.Ask(context.Background(), q)
		if err != nil || got != tc.want {
			t.Errorf("input %q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), "trust network_egress for this run") {
			t.Errorf("prompt:\n%s", out.String())
		}
		if strings.HasPrefix(tc.in, "s") && !strings.Contains(out.String(), `"command": "curl x"`) {
			t.Errorf("details missing the arguments:\n%s", out.String())
		}
	}
}

// Ctrl-C at a prompt ends the wait at once, and the run's error is ctx's.
func TestTerminalCancel(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	p := mustNew(t, Options{Asker: NewTerminal(r, io.Discard)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Check(ctx, call("shell", "curl x", false, risk.NetworkEgress)) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Check = %v, want context.Canceled", err)
	}
}
