package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/risk"
)

// A PreToolUse hook's ask: the operator is asked even about a call the
// policy allows, whatever dangerous.action or non_interactive say; with
// no terminal it is a denial; a policy deny still holds, unasked.
func TestHookAsk(t *testing.T) {
	ctx := context.Background()
	ls := call("shell", "ls", true, risk.Safe)
	ls.HookAsk = "a person must look at every ls"
	for _, tc := range []struct {
		name    string
		cfg     Config
		tty     bool
		answers []Answer
		c       Call
		allow   bool
		asked   int
	}{
		{"allowed class asked: yes", Config{}, true, []Answer{AnswerOnce}, ls, true, 1},
		{"allowed class asked: no", Config{}, true, []Answer{AnswerDeny}, ls, false, 1},
		{"no terminal denies", Config{NonInteractive: "allow"}, false, nil, ls, false, 0},
		{"action allow does not answer it", Config{Action: "allow"}, true, []Answer{AnswerDeny}, ls, false, 1},
		{"a policy deny holds", Config{Denylist: []string{"ls"}}, true, []Answer{AnswerOnce}, ls, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ask := &scripted{answers: tc.answers}
			o := Options{Config: tc.cfg}
			if tc.tty {
				o.Asker = ask
			}
			err := mustNew(t, o).Check(ctx, tc.c)
			if (err == nil) != tc.allow || len(ask.asked) != tc.asked {
				t.Fatalf("Check = %v, asked %d times", err, len(ask.asked))
			}
			if tc.asked > 0 && (!strings.Contains(ask.asked[0].Reason, "a person must look at every ls") || !ask.asked[0].Hook) {
				t.Errorf("question %+v", ask.asked[0])
			}
			if !tc.tty && (err == nil || !strings.Contains(err.Error(), "ls")) {
				t.Errorf("err = %v", err)
			}
		})
	}
	// Without the hook's ask the same call runs unasked.
	ask := &scripted{}
	if err := mustNew(t, Options{Asker: ask}).Check(ctx, call("shell", "ls", true, risk.Safe)); err != nil || len(ask.asked) != 0 {
		t.Fatalf("plain ls: %v, asked %d", err, len(ask.asked))
	}
}
