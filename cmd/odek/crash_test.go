package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/session"
	"github.com/odek-run/odek/internal/testbin"
)

// crashSteps is how many tool batches the scripted run makes.
const crashSteps = 6

// crashScript is a run of crashSteps batches (two failing artifact_read
// calls each, so the tools cost nothing) and an answer, streamed in small
// chunks so that each turn takes a moment.
func crashScript(t *testing.T) *fakellm.Script {
	t.Helper()
	var turns []map[string]any
	for i := range crashSteps {
		turns = append(turns, map[string]any{"content": fmt.Sprintf("step %d", i), "chunk_size": 4, "tool_calls": []any{
			map[string]any{"id": fmt.Sprint("a", i), "name": "artifact_read", "arguments": map[string]any{"id": "x"}},
			map[string]any{"id": fmt.Sprint("b", i), "name": "artifact_read", "arguments": map[string]any{"id": "y"}},
		}})
	}
	turns = append(turns, map[string]any{"content": "all steps done", "chunk_size": 4})
	raw, _ := json.Marshal(map[string]any{"turns": turns})
	s, err := fakellm.ParseScript(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// nonceRe finds the per-call nonces of tool-result frames, which differ run
// to run.
var nonceRe = regexp.MustCompile(`\[[0-9a-f]{16}\]`)

// comparable is a message as the prefix check sees it.
func comparable(m llm.Message) string {
	b, _ := json.Marshal(llm.Message{Role: m.Role, Content: nonceRe.ReplaceAllString(m.Content, "[N]"),
		Name: m.Name, ToolCallID: m.ToolCallID, ToolCalls: m.ToolCalls})
	return string(b)
}

// crashRun runs `odek run --session` against a fresh fake server. When
// killAt > 0 it sends SIGKILL delay after the
// killAt-th request reached the server, or lets the run end if it ends
// first. It returns the home directory.
func crashRun(t *testing.T, odek string, killAt int, delay time.Duration) string {
	t.Helper()
	home := t.TempDir()
	var n atomic.Int32
	reached := make(chan struct{})
	h := fakellm.New(crashScript(t)).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if int(n.Add(1)) == killAt {
			close(reached)
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, odek, "run", "-q", "--session", "--no-planning", "--no-compaction", "do the steps")
	cmd.Env = []string{"ODEK_HOME=" + home, "HOME=" + home, "ODEK_BASE_URL=" + srv.URL + "/v1", "PATH=" + os.Getenv("PATH"),
		// Every call fails on purpose: the loop breaker would stop the run.
		"ODEK_LOOP_BREAKER_HINT_AFTER=0", "ODEK_LOOP_BREAKER_STOP_AFTER=0"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if killAt == 0 {
		if err := <-exited; err != nil {
			t.Fatalf("reference run: %v", err)
		}
		return home
	}
	select {
	case <-reached:
		time.Sleep(delay)      // the kill's moment, drawn at random by the caller
		_ = cmd.Process.Kill() // SIGKILL; it may have exited already
		<-exited
	case <-exited:
	}
	return home
}

// loadOnly loads the one session of home; nil when none was created.
func loadOnly(t *testing.T, home string) *session.Session {
	t.Helper()
	store := session.NewStore(session.Options{Dir: filepath.Join(home, "sessions")})
	ents, _ := os.ReadDir(store.Dir())
	var sess *session.Session
	for _, e := range ents {
		id, ok := cutJSON(e.Name())
		if !ok {
			continue
		}
		if sess != nil {
			t.Fatalf("two sessions in %s", home)
		}
		var err error
		if sess, err = store.Load(id); err != nil {
			t.Fatalf("the session file does not load after SIGKILL: %v", err)
		}
	}
	return sess
}

func cutJSON(name string) (string, bool) {
	if len(name) < 6 || name[0] == '.' || filepath.Ext(name) != ".json" || name == "index.json" {
		return "", false
	}
	return name[:len(name)-5], true
}

// TestSessionSurvivesSIGKILL kills `odek run --session` at random moments
// of a scripted multi-step run: during the response stream, the tool batch,
// the save, or between them. Every time, the session file (if it was
// created) loads, holds a prefix of the conversation with no dangling tool
// call, and holds at least every batch saved before the killAt-th request
// was sent. ODEK_CRASH_TRIALS sets the number of trials (a soak: 5000).
func TestSessionSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs odek hundreds of times")
	}
	t.Parallel()
	trials := 200
	if v := os.Getenv("ODEK_CRASH_TRIALS"); v != "" {
		var err error
		if trials, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	odek := testbin.Build(t, "odek", "./cmd/odek")
	ref := loadOnly(t, crashRun(t, odek, 0, 0))
	if ref == nil || len(ref.Messages) != 2+3*crashSteps+1 { // system prompt, task, the steps, the answer
		t.Fatalf("reference run saved %v", ref)
	}
	want := make([]string, len(ref.Messages))
	for i, m := range ref.Messages {
		want[i] = comparable(m)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	seed := rng.Uint64()
	rng = rand.New(rand.NewPCG(seed, 7))
	// The trials' kill points are drawn here, in order, so a seed names
	// the same trials however they are scheduled; the trials themselves
	// run in parallel (each its own odek, server and home), since a trial
	// mostly waits for odek.
	type trialPlan struct{ killAt, delay int64 }
	plans := make([]trialPlan, trials)
	for i := range plans {
		plans[i] = trialPlan{killAt: 1 + rng.Int64N(crashSteps+1), delay: rng.Int64N(int64(8 * time.Millisecond))}
	}
	var created, complete atomic.Int32
	t.Run("trials", func(t *testing.T) {
		for trial, p := range plans {
			t.Run(strconv.Itoa(trial), func(t *testing.T) {
				t.Parallel()
				killAt := int(p.killAt) // the request after which the kill comes
				sess := loadOnly(t, crashRun(t, odek, killAt, time.Duration(p.delay)))
				if sess == nil {
					if killAt > 1 {
						t.Fatalf("trial %d (seed %d): no session although request %d was sent", trial, seed, killAt)
					}
					return
				}
				created.Add(1)
				if msg := pairedTools(sess.Messages); msg != "" {
					t.Fatalf("trial %d (seed %d): %s", trial, seed, msg)
				}
				if len(sess.Messages) > len(want) {
					t.Fatalf("trial %d: %d messages, more than the conversation's %d", trial, len(sess.Messages), len(want))
				}
				for i, m := range sess.Messages {
					if got := comparable(m); got != want[i] {
						t.Fatalf("trial %d (seed %d): message %d is not the conversation's:\n got %s\nwant %s", trial, seed, i, got, want[i])
					}
				}
				// Request k is sent only after batch k-1 was saved.
				if atLeast := 1 + 3*(killAt-1); len(sess.Messages) < atLeast {
					t.Fatalf("trial %d (seed %d): %d messages after request %d was sent, want at least %d", trial, seed, len(sess.Messages), killAt, atLeast)
				}
				if len(sess.Messages) == len(want) {
					complete.Add(1)
				}
			})
		}
	})
	t.Logf("%d SIGKILL trials (seed %d): %d with a session, %d of them complete; all loaded as a prefix of the conversation", trials, seed, created.Load(), complete.Load())
}
