package main

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/odek-run/odek/internal/msgkind"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdLLMPrefixStable asserts that every request of the run after the first
// repeats the one before it byte for byte up to the messages it adds: the
// same model and tool definitions, in the same order, and each earlier
// message encoded identically, so a provider's prompt cache can serve the
// whole earlier prompt (issue 23). The plan message, which requests send
// last, is the one earlier message that may change: it is compared as the
// tail, not as part of the prefix.
//
//	llm-prefix-stable
func cmdLLMPrefixStable(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: llm-prefix-stable")
	}
	reqs := server(ts).Requests()
	if len(reqs) < 2 {
		ts.Fatalf("%d requests: nothing to compare", len(reqs))
	}
	for i := 1; i < len(reqs); i++ {
		prev, next := requestParts(ts, reqs[i-1].Body), requestParts(ts, reqs[i].Body)
		list, same := "messages", []string{"model", "tools"}
		if _, ok := prev["input"]; ok { // the Responses wire: items, and the system prompt as instructions
			list, same = "input", []string{"model", "tools", "instructions"}
		}
		for _, k := range same {
			if !bytes.Equal(prev[k], next[k]) {
				ts.Fatalf("request %d's %s differ from request %d's:\n%s\n%s", i+1, k, i, prev[k], next[k])
			}
		}
		var pm, nm []json.RawMessage
		ts.Check(json.Unmarshal(prev[list], &pm))
		ts.Check(json.Unmarshal(next[list], &nm))
		if len(pm) > 0 && isPlan(pm[len(pm)-1]) {
			pm = pm[:len(pm)-1]
		}
		if len(nm) <= len(pm) {
			ts.Fatalf("request %d has %d messages, request %d had %d: nothing was added", i+1, len(nm), i, len(pm))
		}
		for j := range pm {
			if !bytes.Equal(pm[j], nm[j]) {
				ts.Fatalf("request %d's message %d differs from request %d's:\n%s\n%s", i+1, j, i, pm[j], nm[j])
			}
		}
	}
}

func requestParts(ts *testscript.TestScript, body []byte) map[string]json.RawMessage {
	var parts map[string]json.RawMessage
	ts.Check(json.Unmarshal(body, &parts))
	return parts
}

// isPlan reports whether a wire message is the plan message.
func isPlan(raw json.RawMessage) bool {
	var m struct{ Role, Content string }
	return json.Unmarshal(raw, &m) == nil && m.Role == "system" && strings.HasPrefix(m.Content, msgkind.Plan.Opening())
}
