package acp

import (
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/plan"
)

// turnView turns one turn's replies, events and results into session
// updates (the Observer a Session's Turn gets). Its methods only queue.
type turnView struct {
	box  *outbox
	sid  sdk.SessionId
	cwd  string
	sess Session

	mu       sync.Mutex
	calls    map[string]string // call id → tool, for the calls of this turn
	resulted map[string]bool   // calls whose result was shown
	lastText string            // the text of the last reply shown
	used     int               // the context's use after the last model call
	hasUsed  bool
}

func newTurnView(box *outbox, s *session) *turnView {
	return &turnView{box: box, sid: sdk.SessionId(s.run.ID()), cwd: s.cwd, sess: s.run,
		calls: map[string]string{}, resulted: map[string]bool{}}
}

var _ Observer = (*turnView)(nil)

// Reply shows the model's reasoning, its text and each tool call it asks
// for (pending: the policy has not ruled yet).
func (v *turnView) Reply(_ int, m llm.Message) {
	if m.ReasoningContent != "" {
		v.box.put(v.sid, sdk.UpdateAgentThoughtText(m.ReasoningContent))
	}
	if m.Content != "" {
		v.box.put(v.sid, sdk.UpdateAgentMessageText(m.Content))
	}
	v.mu.Lock()
	if m.Content != "" {
		v.lastText = m.Content
	}
	for _, c := range m.ToolCalls {
		v.calls[c.ID] = c.Function.Name
	}
	v.mu.Unlock()
	for _, c := range m.ToolCalls {
		v.box.put(v.sid, startCall(v.cwd, c, sdk.ToolCallStatusPending))
	}
}

// startCall is the tool_call update that introduces a call.
func startCall(cwd string, c llm.ToolCall, status sdk.ToolCallStatus) sdk.SessionUpdate {
	cv := viewCall(cwd, c.Function.Name, c.Function.Arguments)
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(cv.kind), sdk.WithStartStatus(status)}
	if cv.locations != nil {
		opts = append(opts, sdk.WithStartLocations(cv.locations))
	}
	if cv.diff != nil {
		opts = append(opts, sdk.WithStartContent(cv.diff))
	}
	if cv.raw != nil {
		opts = append(opts, sdk.WithStartRawInput(cv.raw))
	}
	return sdk.StartToolCall(sdk.ToolCallId(c.ID), cv.title, opts...)
}

// Batch shows each result of the batch, as the model saw it without odek's
// frame, on its call.
func (v *turnView) Batch(history []llm.Message) {
	v.mu.Lock()
	var shown []llm.Message
	for _, m := range history {
		if m.Role != llm.RoleTool || v.resulted[m.ToolCallID] {
			continue
		}
		if _, ours := v.calls[m.ToolCallID]; ours {
			v.resulted[m.ToolCallID] = true
			shown = append(shown, m)
		}
	}
	v.mu.Unlock()
	for _, m := range shown {
		v.box.put(v.sid, sdk.UpdateToolCall(sdk.ToolCallId(m.ToolCallID),
			sdk.WithUpdateContent(textContent(unframe(m.Content)))))
	}
}

// Write translates the events a client shows: a call's progress, the
// context's use, the plan. The rest (run_started, heartbeats, the final
// events) is for the event stream; the prompt's response tells the end.
func (v *turnView) Write(ev *events.Event) error {
	switch ev.Type {
	case events.ToolCallStarted:
		v.status(ev, sdk.ToolCallStatusInProgress)
	case events.ToolCallCompleted:
		v.status(ev, sdk.ToolCallStatusCompleted)
	case events.ToolCallFailed:
		v.status(ev, sdk.ToolCallStatusFailed)
	case events.IterationCompleted:
		v.usage(ev.Data)
	case events.PlanCreated, events.PlanUpdated:
		if steps := v.sess.Plan(); steps != nil {
			v.box.put(v.sid, sdk.UpdatePlan(planEntries(steps)...))
		}
	}
	return nil
}

// status moves a call of this turn to status; odek's event data rides in
// _meta.odek (exit_code, error_class, risk_class, reason). The content is
// the result Batch shows (a refusal's text included): an update's content
// replaces the call's, and the events arrive on their own goroutine.
func (v *turnView) status(ev *events.Event, st sdk.ToolCallStatus) {
	id, _ := ev.Data["call_id"].(string)
	v.mu.Lock()
	_, ours := v.calls[id]
	v.mu.Unlock()
	if !ours {
		return // a sub-agent's call, or one of another turn
	}
	u := sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(st))
	if meta := callMeta(ev.Data); meta != nil {
		u.ToolCallUpdate.Meta = map[string]any{"odek": meta}
	}
	v.box.put(v.sid, u)
}

// callMeta is what a call's event says that ACP has no field for.
func callMeta(d map[string]any) map[string]any {
	m := map[string]any{}
	for _, k := range []string{"exit_code", "error_class", "risk_class", "reason", "duration_ms"} {
		if x, ok := d[k]; ok {
			m[k] = x
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// usage reports how full the context is after a model call: its prompt
// and its reply.
func (v *turnView) usage(d map[string]any) {
	size := v.sess.ContextWindow()
	in, okIn := count(d["call_input_tokens"])
	out, _ := count(d["call_output_tokens"])
	if size <= 0 || !okIn {
		return
	}
	v.mu.Lock()
	v.used, v.hasUsed = int(in+out), true
	v.mu.Unlock()
	v.box.put(v.sid, sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{Size: size, Used: int(in + out)}})
}

// lastUsed is the context's use after the turn's last model call.
func (v *turnView) lastUsed() (int, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.used, v.hasUsed
}

// count reads an event's number, whichever integer type it was put as.
func count(x any) (int64, bool) {
	switch n := x.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}

// planEntries are the plan's steps as ACP entries; a blocked step is
// pending with its status and note in _meta.odek.
func planEntries(steps []plan.Step) []sdk.PlanEntry {
	out := make([]sdk.PlanEntry, 0, len(steps))
	for _, s := range steps {
		e := sdk.PlanEntry{Content: s.Title, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending}
		switch s.Status {
		case plan.InProgress:
			e.Status = sdk.PlanEntryStatusInProgress
		case plan.Done:
			e.Status = sdk.PlanEntryStatusCompleted
		}
		if s.Status == plan.Blocked || s.Note != "" {
			e.Meta = map[string]any{"odek": map[string]any{"id": s.ID, "status": string(s.Status), "note": s.Note}}
		}
		out = append(out, e)
	}
	return out
}

// answerShown reports whether a reply already showed answer.
func (v *turnView) answerShown(answer string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return answer == v.lastText
}
