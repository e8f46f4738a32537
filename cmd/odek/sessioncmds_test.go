package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/session"
	"github.com/rogpeppe/go-internal/testscript"
)

// sessionCmds are the testscript commands for sessions.
var sessionCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"session-id":     cmdSessionID,
	"session-check":  cmdSessionCheck,
	"llm-messages":   cmdLLMMessages,
	"events-session": cmdEventsSession,
	"session-wait":   cmdSessionWait,
	"llm-paired":     cmdLLMPaired,
	"session-resign": cmdSessionResign,
}

// cmdSessionResign signs a session file again with the install's key after
// a script edited it on purpose, as docs/SESSIONS.md ("Integrity") defines
// the MAC: HMAC-SHA256 under session.key of "odek.session/v1\x00" and the
// file without its leading mac field. The edit must keep the file as odek
// encodes it (compact JSON, same field order).
//
//	session-resign <id>
func cmdSessionResign(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: session-resign <id>")
	}
	home := ts.Getenv("ODEK_HOME")
	hexKey, err := os.ReadFile(filepath.Join(home, session.KeyFile))
	ts.Check(err)
	key, err := hex.DecodeString(strings.TrimSpace(string(hexKey)))
	ts.Check(err)
	path := filepath.Join(home, "sessions", args[0]+".json")
	data, err := os.ReadFile(path)
	ts.Check(err)
	const prefix = len(`{"mac":"`) + 64 + len(`",`)
	if !bytes.HasPrefix(data, []byte(`{"mac":"`)) || len(data) < prefix {
		ts.Fatalf("%s does not start with a mac", path)
	}
	unsigned := append([]byte("{"), data[prefix:]...)
	h := hmac.New(sha256.New, key)
	h.Write([]byte("odek.session/v1\x00"))
	h.Write(unsigned)
	signed := append([]byte(`{"mac":"`+hex.EncodeToString(h.Sum(nil))+`",`), unsigned[1:]...)
	ts.Check(os.WriteFile(path, signed, 0o600))
}

// cmdLLMPaired asserts that no request sent a tool message without its
// assistant tool call, or a tool call without its result:
//
//	llm-paired
func cmdLLMPaired(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: llm-paired")
	}
	for n, req := range server(ts).Requests() {
		var body struct{ Messages []llm.Message }
		ts.Check(json.Unmarshal(req.Body, &body))
		if err := pairedTools(body.Messages); err != "" {
			ts.Fatalf("request %d: %s", n+1, err)
		}
	}
}

// cmdSessionWait waits (up to 10 s) until the newest session holds at least
// N messages:
//
//	session-wait 3
func cmdSessionWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: session-wait N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if sess, err := scriptStore(ts).Newest(); err == nil && len(sess.Messages) >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	ts.Fatalf("no session reached %d messages in 10s", n)
}

func scriptStore(ts *testscript.TestScript) *session.Store {
	return session.NewStore(session.Options{Dir: filepath.Join(ts.Getenv("ODEK_HOME"), "sessions")})
}

// cmdSessionID sets an environment variable to the id of the most recently
// updated session:
//
//	session-id SID
func cmdSessionID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: session-id VAR")
	}
	sess, err := scriptStore(ts).Newest()
	ts.Check(err)
	ts.Setenv(args[0], sess.ID)
}

// cmdSessionCheck loads a session the way continue does and checks it: it
// parses, its file is 0600, no tool call is left without its result, and
// the given fields hold:
//
//	session-check $SID messages=5 turns=1 roles=system,user,assistant refs=1
func cmdSessionCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: session-check ID [messages=N] [turns=N] [roles=a,b] [refs=N]")
	}
	store := scriptStore(ts)
	sess, err := store.Load(args[0])
	ts.Check(err)
	path, _ := store.Path(args[0])
	st, err := os.Stat(path)
	ts.Check(err)
	if st.Mode().Perm() != 0o600 {
		ts.Fatalf("session file mode %v, want 0600", st.Mode().Perm())
	}
	if err := pairedTools(sess.Messages); err != "" {
		ts.Fatalf("session %s: %s", args[0], err)
	}
	for _, kv := range args[1:] {
		k, v, _ := strings.Cut(kv, "=")
		var got string
		switch k {
		case "messages":
			got = strconv.Itoa(len(sess.Messages))
		case "turns":
			got = strconv.Itoa(sess.Turns)
		case "roles":
			got = roles(sess.Messages)
		case "refs":
			got = strconv.Itoa(len(sess.ExternalRefs))
		default:
			ts.Fatalf("session-check: unknown field %q", k)
		}
		if got != v {
			ts.Fatalf("session %s: %s = %s, want %s", args[0], k, got, v)
		}
	}
}

func roles(msgs []llm.Message) string {
	r := make([]string, len(msgs))
	for i, m := range msgs {
		r[i] = m.Role
	}
	return strings.Join(r, ",")
}

// pairedTools describes the first tool message without its assistant tool
// call, or tool call without its result; "" when all pair up.
func pairedTools(msgs []llm.Message) string {
	pending := map[string]bool{}
	for i, m := range msgs {
		switch {
		case m.Role == llm.RoleTool:
			if !pending[m.ToolCallID] {
				return "message " + strconv.Itoa(i+1) + " is a tool result without its tool call"
			}
			delete(pending, m.ToolCallID)
		case len(pending) > 0:
			return "a tool call before message " + strconv.Itoa(i+1) + " has no result"
		}
		for _, c := range m.ToolCalls {
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		return "the last tool calls have no results"
	}
	return ""
}

// cmdLLMMessages asserts the roles of the messages of request N, in order:
//
//	llm-messages 1 system,user,assistant,tool,assistant,user
func cmdLLMMessages(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: llm-messages N role,role,...")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	reqs := server(ts).Requests()
	if n < 1 || n > len(reqs) {
		ts.Fatalf("request %d does not exist (%d received)", n, len(reqs))
	}
	var body struct{ Messages []llm.Message }
	ts.Check(json.Unmarshal(reqs[n-1].Body, &body))
	if err := pairedTools(body.Messages); err != "" {
		ts.Fatalf("request %d: %s", n, err)
	}
	if got := roles(body.Messages); (got == args[1]) == neg {
		ts.Fatalf("request %d roles = %s, want %s", n, got, args[1])
	}
}

// cmdEventsSession asserts that every event of a file after the first one
// carries that session id (run_started may too):
//
//	events-session ev.jsonl $SID
func cmdEventsSession(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: events-session file ID")
	}
	for i, ev := range readEvents(ts, args[0]) {
		if id, _ := ev["session_id"].(string); id != args[1] {
			ts.Fatalf("event %d (%v) has session_id %q, want %q", i+1, ev["type"], id, args[1])
		}
	}
}
