package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Unit tests of the newer result shapes' helpers: structured content,
// progress, input_required retries and the era before the handshake.

// leavesIn gives up past maxLeaves values (containers count): such a
// structure is shown even when the text holds every value.
func TestLeavesInIsBounded(t *testing.T) {
	for _, n := range []int{maxLeaves - 1, maxLeaves} { // with the array: maxLeaves, maxLeaves+1
		compact := "[" + strings.Repeat("1,", n-1) + "1]"
		if got, want := leavesIn([]byte(compact), "1"), n < maxLeaves; got != want {
			t.Errorf("%d ones: leavesIn = %v, want %v", n, got, want)
		}
	}
}

// A tool with an outputSchema must send structuredContent: absent or null
// is errNoStructured, not a schema mismatch.
func TestCheckStructuredNeedsContent(t *testing.T) {
	c := &Client{}
	c.outSchemas.set([]ToolDef{{Name: "w", OutputSchema: json.RawMessage(`{"type":"object"}`)}})
	for _, sc := range []string{"", " null "} {
		if err := c.checkStructured("w", json.RawMessage(sc)); !errors.Is(err, errNoStructured) {
			t.Errorf("structuredContent %q: err = %v", sc, err)
		}
	}
	if err := c.checkStructured("w", json.RawMessage(`{}`)); err != nil {
		t.Errorf("matching content: %v", err)
	}
}

// A progress notification odek routes has a token and decodes whole.
func TestParseProgress(t *testing.T) {
	tests := []struct {
		params string
		ok     bool
	}{
		{`{"progressToken":"odek-1","progress":1,"total":2}`, true},
		{`{"progress":1}`, false},
		{`{"progressToken":"odek-1","progress":"half"}`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if _, ok := parseProgress(json.RawMessage(tt.params)); ok != tt.ok {
			t.Errorf("parseProgress(%s) ok = %v, want %v", tt.params, ok, tt.ok)
		}
	}
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		progress, total float64
		want            string
	}{
		{3, 10, "3/10"},
		{1.5, 3, "50%"},    // a fractional progress
		{2, 2.5, "80%"},    // a fractional total
		{3, 0, "3"},        // no total
		{0.25, -1, "0.25"}, // a negative total is none
	}
	for _, tt := range tests {
		if got := progressLine(tt.progress, tt.total); got != tt.want {
			t.Errorf("progressLine(%v, %v) = %q, want %q", tt.progress, tt.total, got, tt.want)
		}
	}
}

// The retry of an input_required result carries inputResponses only when
// there was something to answer, and requestState only when one was given.
func TestAnswerInputSendsOnlyWhatItHas(t *testing.T) {
	c := &Client{name: "s"}
	state := "st-1"
	for _, res := range []callResultWire{{RequestState: &state}, {}} {
		next, err := c.answerInput(context.Background(), "t", &res, map[string]any{"name": "t", "arguments": json.RawMessage(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(next)
		want := `{"arguments":{},"name":"t"}`
		if res.RequestState != nil {
			want = `{"arguments":{},"name":"t","requestState":"st-1"}`
		}
		if string(b) != want {
			t.Errorf("retry %s, want %s", b, want)
		}
	}
}

// Before the handshake completes only a modern probe names the era; the
// version waits for the handshake.
func TestEraBeforeTheHandshake(t *testing.T) {
	tests := []struct {
		state   *serverState
		inited  bool
		era     Era
		version string
	}{
		{nil, false, "", ""},
		{&serverState{era: EraLegacy, version: "2025-03-26"}, false, "", ""},
		{&serverState{era: EraModern, version: "2026-07-28"}, false, EraModern, ""},
		{&serverState{era: EraLegacy, version: "2025-03-26"}, true, EraLegacy, "2025-03-26"},
	}
	for _, tt := range tests {
		c := &Client{}
		if tt.state != nil {
			c.state.Store(tt.state)
		}
		c.inited.Store(tt.inited)
		if c.Era() != tt.era || c.ProtocolVersion() != tt.version {
			t.Errorf("%+v inited %v: era %q version %q, want %q %q", tt.state, tt.inited, c.Era(), c.ProtocolVersion(), tt.era, tt.version)
		}
	}
}
