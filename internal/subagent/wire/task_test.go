package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTaskValid(t *testing.T) {
	in := `{"task_id":"task-0123456789abcdef","protocol":2,"goal":"count words","context":"c","guidance":"g",
	 "trust_level":"trusted","max_risk":"local_write","profile":"ci.read-only","parent_trust":"untrusted",
	 "artifact_root":"/home/u/.odek/artifacts/unfiled/task-0123456789abcdef","provider":"openai","model":"m",
	 "base_url":"http://127.0.0.1:1/v1","parent_run_id":"0123456789abcdef0123456789abcdef","parent_session":"20260807-ab",
	 "events":true,"budget":{"max_runtime_seconds":30,"max_tool_calls":4,"max_cost_usd":0.5,"tool_calls_exhausted":false},
	 "output_schema":{"type":"object","required":["n"]}}`
	task, err := ParseTask([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &Task{
		TaskID: "task-0123456789abcdef", Protocol: 2, Goal: "count words", Context: "c", Guidance: "g",
		TrustLevel: "trusted", MaxRisk: "local_write", Profile: "ci.read-only", ParentTrust: "untrusted",
		ArtifactRoot: "/home/u/.odek/artifacts/unfiled/task-0123456789abcdef", Provider: "openai", Model: "m",
		BaseURL: "http://127.0.0.1:1/v1", ParentRunID: "0123456789abcdef0123456789abcdef", ParentSession: "20260807-ab",
		Events: true, Budget: &Budget{MaxRuntimeSeconds: 30, MaxToolCalls: 4, MaxCostUSD: 0.5},
		OutputSchema: json.RawMessage(`{"type":"object","required":["n"]}`),
	}
	if diff := cmp.Diff(want, task); diff != "" {
		t.Fatalf("ParseTask (-want +got):\n%s", diff)
	}
	if task.Trust() != Untrusted {
		t.Errorf("trust = %q: an untrusted parent must make the child untrusted", task.Trust())
	}
	// Encode round-trips through the strict parser.
	b, err := task.Encode()
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseTask(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(task, again); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
}

func TestParseTaskRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"not json", `goal`, "task file: invalid JSON at byte 1"},
		{"array", `[]`, "task file: field (top level): want wire.Task, got array"},
		{"duplicate key", `{"goal":"a","goal":"b"}`, `task file: duplicate key "goal"`},
		{"duplicate nested key", `{"goal":"a","budget":{"max_tool_calls":1,"max_tool_calls":2}}`, `task file: duplicate key "max_tool_calls"`},
		{"trailing data", `{"goal":"g"} {}`, "task file: unexpected data after the JSON object"},
		{"no goal", `{}`, "task file: goal is required"},
		{"blank goal", `{"goal":"  \n"}`, "task file: goal is required"},
		{"goal too long", `{"goal":"` + strings.Repeat("a", maxGoalBytes+1) + `"}`, "task file: goal is 65537 bytes, exceeding the limit of 65536"},
		{"nul in goal", `{"goal":"a\u0000b"}`, "task file: goal contains a NUL byte"},
		{"bad utf8", "{\"goal\":\"a\xffb\"}", "task file: not valid UTF-8"},
		{"protocol", `{"goal":"g","protocol":3}`, "task file: protocol unsupported protocol 3 (want 1 or 2)"},
		{"trust", `{"goal":"g","trust_level":"root"}`, `task file: trust_level "root" is not one of trusted, untrusted`},
		{"parent trust", `{"goal":"g","parent_trust":"TRUSTED"}`, `task file: parent_trust "TRUSTED" is not one of trusted, untrusted`},
		{"risk", `{"goal":"g","max_risk":"anything"}`, `task file: max_risk "anything" is not one of safe, local_write, system_write, destructive, code_execution, network_egress, install, blocked`},
		{"task id", `{"goal":"g","task_id":"../../etc"}`, `task file: task_id "../../etc" is not of the form task-<16 lowercase hex>`},
		{"profile", `{"goal":"g","profile":"a/b"}`, `task file: profile "a/b" must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`},
		{"relative root", `{"goal":"g","artifact_root":"arts"}`, "task file: artifact_root must be an absolute, clean path"},
		{"unclean root", `{"goal":"g","artifact_root":"/a/../b"}`, "task file: artifact_root must be an absolute, clean path"},
		{"run id", `{"goal":"g","parent_run_id":"XYZ"}`, "task file: parent_run_id must be 32 lowercase hex digits"},
		{"provider too long", `{"goal":"g","provider":"` + strings.Repeat("p", 2049) + `"}`, "task file: provider is 2049 bytes, exceeding the limit of 2048"},
		{"negative budget", `{"goal":"g","budget":{"max_tool_calls":-1}}`, "task file: budget.max_tool_calls must not be negative, got -1"},
		{"negative cost", `{"goal":"g","budget":{"max_cost_usd":-0.5}}`, "task file: budget.max_cost_usd must be a non-negative number, got -0.5"},
		{"wrong type", `{"goal":"g","budget":{"max_tool_calls":"3"}}`, "task file: field budget.max_tool_calls: want int64, got string"},
		{"fraction", `{"goal":"g","protocol":2.5}`, "task file: field protocol: want int, got number 2.5"},
		{"schema not an object", `{"goal":"g","output_schema":true}`, "task file: output_schema must be a JSON object (a JSON Schema)"},
		{"schema null", `{"goal":"g","output_schema":null}`, "task file: output_schema must be a JSON object (a JSON Schema)"},
		{"schema too big", `{"goal":"g","output_schema":{"description":"` + strings.Repeat("d", maxOutputSchemaBytes) + `"}}`,
			"task file: output_schema is 1048594 bytes, exceeding the limit of 1048576"},
		{"schema duplicate key", `{"goal":"g","output_schema":{"type":"object","type":"string"}}`, `task file: duplicate key "type"`},
		{"negative price", `{"goal":"g","budget":{"input_cost_per_million_usd":-1}}`, "task file: budget.input_cost_per_million_usd must be a non-negative number, got -1"},
		{"tools not a list", `{"goal":"g","parent_tools":"shell"}`, "task file: field parent_tools: want []string, got string"},
		{"empty tool name", `{"goal":"g","parent_tools":["read_file",""]}`, "task file: parent_tools is required"},
		{"tool name nul", `{"goal":"g","parent_tools":["a\u0000"]}`, "task file: parent_tools contains a NUL byte"},
		{"too many tools", `{"goal":"g","parent_tools":[` + strings.TrimSuffix(strings.Repeat(`"t",`, 1025), ",") + `]}`,
			"task file: parent_tools has 1025 names, exceeding the limit of 1024"},
		{"policy decision", `{"goal":"g","parent_policy":{"classes":{"local_write":"maybe"}}}`,
			`task file: parent_policy.classes.local_write "maybe" is not one of allow, prompt, deny`},
		{"policy empty decision", `{"goal":"g","parent_policy":{"classes":{"local_write":""}}}`,
			`task file: parent_policy.classes.local_write "" is not one of allow, prompt, deny`},
		{"policy class name", `{"goal":"g","parent_policy":{"classes":{"Local Write":"deny"}}}`,
			`task file: parent_policy.classes "Local Write" is not a risk class name`},
		{"policy duplicate class", `{"goal":"g","parent_policy":{"classes":{"safe":"deny","safe":"allow"}}}`, `task file: duplicate key "safe"`},
		{"policy entry nul", `{"goal":"g","parent_policy":{"denylist":["rm\u0000"]}}`, "task file: parent_policy.denylist contains a NUL byte"},
		{"llm not strings", `{"goal":"g","llm":{"stream":false}}`, "task file: field llm: want string, got bool"},
		{"llm value too long", `{"goal":"g","llm":{"thinking":"` + strings.Repeat("x", 257) + `"}}`, "task file: llm.thinking is 257 bytes, exceeding the limit of 256"},
		{"llm duplicate", `{"goal":"g","llm":{"stream":"true","stream":"false"}}`, `task file: duplicate key "stream"`},
		// DECISION 29: unknown fields are ignored, the rest is as strict.
		{"duplicate unknown field", `{"goal":"g","later":1,"later":2}`, `task file: duplicate key "later"`},
		{"duplicate inside an unknown field", `{"goal":"g","later":{"a":1,"a":2}}`, `task file: duplicate key "a"`},
		{"known field of the wrong type beside an unknown one", `{"goal":"g","later":true,"events":"yes"}`,
			"task file: field events: want bool, got string"},
		{"trailing data after unknown fields", `{"goal":"g","later":[1]} {}`, "task file: unexpected data after the JSON object"},
		{"unknown field does not excuse a missing goal", `{"gaol":"x"}`, "task file: goal is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTask([]byte(tc.in))
			if err == nil {
				t.Fatalf("ParseTask(%.60q) succeeded", tc.in)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error = %q\nwant prefix %q", err, tc.want)
			}
		})
	}
}

// TestParseTaskIgnoresUnknownFields: a task file a newer parent wrote, with
// fields this child does not know at every depth, reads as the fields it
// knows (DECISION 29, docs/EXTENSIONS.md's additive rule).
func TestParseTaskIgnoresUnknownFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     *Task
	}{
		{"top level", `{"goal":"g","gaol":"x","priority":7,"hints":{"a":[1,{"b":null}]}}`, &Task{Goal: "g"}},
		{"in budget", `{"goal":"g","budget":{"max_tool_calls":3,"max_wall_clock":9}}`,
			&Task{Goal: "g", Budget: &Budget{MaxToolCalls: 3}}},
		{"in parent_policy", `{"goal":"g","parent_policy":{"action":"allow","denylist":["rm"]}}`,
			&Task{Goal: "g", ParentPolicy: &Policy{Denylist: []string{"rm"}}}},
		{"in sandbox", `{"goal":"g","sandbox":{"mode":"off","gpu":true}}`,
			&Task{Goal: "g", Sandbox: &TaskSandbox{Mode: "off"}}},
		{"an llm setting this child does not know", `{"goal":"g","llm":{"stream":"false","api_key":"x","temperature":"0.2"}}`,
			&Task{Goal: "g", LLM: map[string]string{"stream": "false", "api_key": "x", "temperature": "0.2"}}},
		{"an overlong value of an unknown llm key", `{"goal":"g","llm":{"later":"` + strings.Repeat("x", 300) + `"}}`,
			&Task{Goal: "g", LLM: map[string]string{"later": strings.Repeat("x", 300)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTask([]byte(tc.in))
			if err != nil {
				t.Fatalf("ParseTask(%.80q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("ParseTask (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTaskSizeCap(t *testing.T) {
	big := make([]byte, MaxTaskFileBytes+1)
	_, err := ParseTask(big)
	if err == nil || !strings.Contains(err.Error(), "exceed the limit of 4194304") {
		t.Fatalf("err = %v", err)
	}
}

func TestMinTrust(t *testing.T) {
	tests := []struct{ parent, task, want string }{
		{"", "", Untrusted}, {"", Trusted, Trusted}, {Trusted, Trusted, Trusted},
		{Untrusted, Trusted, Untrusted}, {Trusted, Untrusted, Untrusted}, {Trusted, "", Untrusted},
	}
	for _, tc := range tests {
		if got := minTrust(tc.parent, tc.task); got != tc.want {
			t.Errorf("minTrust(%q, %q) = %q, want %q", tc.parent, tc.task, got, tc.want)
		}
	}
}

func TestEffectiveProtocol(t *testing.T) {
	for in, want := range map[int]int{0: 1, 1: 1, 2: 2} {
		if got := (&Task{Protocol: in}).EffectiveProtocol(); got != want {
			t.Errorf("protocol %d → %d, want %d", in, got, want)
		}
	}
}

// FuzzParseTask: the parser never panics, and whatever it accepts is valid,
// re-encodes, and parses back to the same task.
func FuzzParseTask(f *testing.F) {
	f.Add([]byte(`{"goal":"g","protocol":2,"budget":{"max_tool_calls":1}}`))
	f.Add([]byte(`{"goal":"g","goal":"h"}`))
	f.Add([]byte(`{"goal":"x","task_id":"task-0123456789abcdef","artifact_root":"/a"}`))
	f.Add([]byte(`{"goal":"x","budget":{"runtime_exhausted":true},"x":[{"a":{"b":1}}]}`))
	f.Add([]byte(`{"goal":"x","output_schema":{"type":"object", "properties":{"a":{"const":"\u00e9"}}}}`))
	f.Add([]byte(`{"goal":"x","parent_tools":["read_file","shell"],"parent_policy":{"classes":{"local_write":"deny"},"denylist":["rm -rf /"]},"llm":{"stream":"false","thinking":"low"}}`))
	f.Add([]byte(`{"goal":"x","parent_tools":[],"parent_policy":{},"llm":{}}`))
	f.Add([]byte(`{"goal":"x","parent_tools":null,"budget":{"max_cost_usd":0.5,"input_cost_per_million_usd":1,"output_cost_per_million_usd":2}}`))
	f.Add([]byte(`{"goal":"x","later":{"a":[1,{"b":null}]},"budget":{"later":true},"llm":{"temperature":"0.1"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		task, err := ParseTask(data)
		if err != nil {
			return
		}
		if err := task.Validate(); err != nil {
			t.Fatalf("accepted an invalid task: %v", err)
		}
		b, err := task.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseTask(b)
		if err != nil {
			t.Fatalf("re-encoded task does not parse: %v\n%s", err, b)
		}
		x, _ := json.Marshal(again)
		if string(x) != string(b) {
			t.Fatalf("round trip changed the task:\n%s\n%s", b, x)
		}
	})
}
