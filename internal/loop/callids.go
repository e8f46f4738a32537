package loop

import (
	"encoding/json"
	"strconv"

	"github.com/odek-run/odek/internal/llm"
)

// callIDs keeps tool-call ids unique over a run: a call without a provider id,
// or with one already used (some servers number every response's calls from
// call_0), gets "it<iteration>-call<index>" (docs/EXTENSIONS.md; index from 0).
type callIDs map[string]struct{}

// seedCallIDs records the ids already in a history (a continued session).
func seedCallIDs(msgs []llm.Message) callIDs {
	ids := callIDs{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			ids[c.ID] = struct{}{}
		}
	}
	return ids
}

// assign fills in and de-duplicates the ids of iteration i's calls in place.
func (ids callIDs) assign(i int, calls []llm.ToolCall) {
	for k := range calls {
		id := calls[k].ID
		if _, dup := ids[id]; id == "" || dup {
			id = "it" + strconv.Itoa(i) + "-call" + strconv.Itoa(k)
			for n := 2; ; n++ { // only if a provider itself sent this form
				if _, dup := ids[id]; !dup {
					break
				}
				id = "it" + strconv.Itoa(i) + "-call" + strconv.Itoa(k) + "-" + strconv.Itoa(n)
			}
			calls[k].ID = id
		}
		ids[id] = struct{}{}
	}
}

// cutCalls marks the calls of a reply cut at the output-token limit whose
// arguments did not arrive whole (not valid JSON). They are not run; the
// model gets an error result saying why, so it can call again.
func cutCalls(resp *llm.Response) map[string]bool {
	if resp.FinishReason != finishLength {
		return nil
	}
	var cut map[string]bool
	for _, c := range resp.Message.ToolCalls {
		if !json.Valid([]byte(c.Function.Arguments)) { // "" too: cut right after the name
			if cut == nil {
				cut = map[string]bool{}
			}
			cut[c.ID] = true
		}
	}
	return cut
}
