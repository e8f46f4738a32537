package fakellm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseScript(t *testing.T) {
	s, err := ParseScript([]byte(`{
	  "model": "m1",
	  "turns": [
	    {"fault": "rate_limit", "fault_arg": 2},
	    {"fault": "rate_limit", "fault_arg": "Wed, 21 Oct 2015 07:28:00 GMT"},
	    {"content": "hi", "tool_calls": [{"name": "f", "arguments": {"a": [1, 2]}}, {"id": "x", "name": "g", "arguments": "{not json"}],
	     "usage": {"prompt_tokens": 3, "completion_tokens": 4, "cached_tokens": 1}, "chunk_size": 2, "match": "hello"},
	    {"content": "no usage", "usage": false},
	    {"content": "generated", "usage": null},
	    {"fault": "status", "fault_arg": 503}
	  ]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Model != "m1" || len(s.Turns) != 6 {
		t.Fatalf("%+v", s)
	}
	if s.Turns[0].FaultArg != "2" || s.Turns[1].FaultArg != "Wed, 21 Oct 2015 07:28:00 GMT" || s.Turns[5].FaultArg != "503" {
		t.Errorf("fault args: %q %q %q", s.Turns[0].FaultArg, s.Turns[1].FaultArg, s.Turns[5].FaultArg)
	}
	t2 := s.Turns[2]
	if t2.ToolCalls[0].ArgumentsText() != `{"a":[1,2]}` || t2.ToolCalls[1].ArgumentsText() != "{not json" {
		t.Errorf("arguments: %q %q", t2.ToolCalls[0].ArgumentsText(), t2.ToolCalls[1].ArgumentsText())
	}
	if !reflect.DeepEqual(t2.Usage, &ScriptUsage{PromptTokens: 3, CompletionTokens: 4, CachedTokens: 1}) || t2.ChunkSize != 2 || t2.Match != "hello" {
		t.Errorf("turn 3: %+v", t2)
	}
	if !s.Turns[3].NoUsage || s.Turns[3].Usage != nil || s.Turns[4].NoUsage || s.Turns[4].Usage != nil {
		t.Errorf("usage opt-out: %+v %+v", s.Turns[3], s.Turns[4])
	}

	// Round trip through MarshalJSON.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := ParseScript(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	b2, _ := json.Marshal(s2)
	if string(b) != string(b2) || s2.Turns[2].ToolCalls[0].ArgumentsText() != `{"a":[1,2]}` {
		t.Errorf("round trip:\n%s\n%s", b, b2)
	}

	// A bare array works too.
	if s, err := ParseScript([]byte(`[{"content":"a"}]`)); err != nil || len(s.Turns) != 1 {
		t.Errorf("bare array: %v", err)
	}
}

func TestParseScriptErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, "script is empty"},
		{`{"turns": []}`, "no turns"},
		{`{"turn": [{"content":"a"}]}`, `unknown field "turn"`},
		{"{\n  \"turns\": [\n    {\"content\": \"a\",}\n  ]\n}", "line 3, column"},
		{`{"turns": [{"content": "a"}, {"contnet": "b"}]}`, `turn 2: unknown field "contnet"`},
		{`{"turns": [{"fault": "rate_limt"}]}`, `turn 1: unknown fault "rate_limt" (known: bad_gateway, context_length, drop_mid_stream, hang, keepalive_only, malformed_sse, rate_limit, server_error, slow_first_token, stall_mid_stream, status, unauthorized)`},
		{`{"turns": [{"fault": "status"}]}`, `turn 1: fault "status" needs fault_arg`},
		{`{"turns": [{"fault": "status", "fault_arg": 42}]}`, `needs fault_arg: an HTTP status`},
		{`{"turns": [{"fault": "drop_mid_stream", "fault_arg": "x"}]}`, `non-negative integer`},
		{`{"turns": [{"fault": "hang", "fault_arg": 1}]}`, `fault "hang" takes no fault_arg`},
		{`{"turns": [{"fault_arg": {"a":1}}]}`, `fault_arg: want a number or a string`},
		{`{"turns": [{"tool_calls": [{"arguments": {}}]}]}`, `tool call 1 has no name`},
		{`{"turns": [{"usage": {"prompt": 1}}]}`, `usage: want false or`},
		{`{"turns": [{"usage": "lots"}]}`, `usage: want false or`},
		{`{"turns": [{"delay_ms": -1}]}`, `must not be negative`},
		{`{"turns": [{"after_requests": -1}]}`, `must not be negative`},
		{`{"turns": [{"content": "a"}]} {}`, `trailing data`},
	}
	for _, c := range cases {
		_, err := ParseScript([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "fakellm: ") {
			t.Errorf("ParseScript(%q) error = %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.json")
	os.WriteFile(p, []byte(`{"turns":[{"fault":"nope"}]}`), 0o644)
	if _, err := LoadScript(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "turn 1") {
		t.Errorf("err = %v", err)
	}
	if _, err := LoadScript(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("err = %v", err)
	}
}

// The demo scripts must stay loadable.
func TestDemoScripts(t *testing.T) {
	for _, name := range []string{"script.json", "plain.json"} {
		s, err := LoadScript(filepath.Join("..", "..", "testdata", "demo", name))
		if err != nil {
			t.Fatal(err)
		}
		last := s.Turns[len(s.Turns)-1]
		if last.Content == "" || len(last.ToolCalls) != 0 {
			t.Errorf("%s: the last turn should be a final answer", name)
		}
	}
}

func TestSplit(t *testing.T) {
	got := split("aé€😀b", 2)
	want := []string{"a", "é", "€", "😀", "b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("split = %q", got)
	}
	if strings.Join(split("hello world", 3), "") != "hello world" || len(split("", 3)) != 0 {
		t.Error("split lost data")
	}
}

// A turn with repeat is that many turns: a model that repeats itself is one
// line of a script.
func TestParseScriptRepeat(t *testing.T) {
	s, err := ParseScript([]byte(`[{"tool_calls": [{"name": "status", "arguments": {}}], "repeat": 3}, {"content": "done"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 4 || s.Turns[2].ToolCalls[0].Name != "status" || s.Turns[3].Content != "done" {
		t.Fatalf("%d turns: %+v", len(s.Turns), s.Turns)
	}
	for _, bad := range []string{`[{"content": "x", "repeat": -1}]`, `[{"content": "x", "repeat": 10001}]`} {
		if _, err := ParseScript([]byte(bad)); err == nil || !strings.Contains(err.Error(), "repeat") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
