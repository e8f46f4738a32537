package cassette

import (
	"strings"
	"testing"
)

func TestNormalizerMasksVolatiles(t *testing.T) {
	t.Parallel()
	rec := newNormalizer(scrub{}, false, map[string]string{"workdir": "/tmp/rec/work", "home": "/tmp/rec"})
	live := newNormalizer(scrub{}, false, map[string]string{"workdir": "/ci/w", "home": "/root"})
	a := `{"messages":[{"role":"user","content":"in /tmp/rec/work and /tmp/rec: <untrusted_content_0123456789abcdef> [0011223344556677]"}]}`
	b := `{"messages":[{"role":"user","content":"in /ci/w and /root: <untrusted_content_fedcba9876543210> [8899aabbccddeeff]"}]}`
	wa, err := rec.llmRequest([]byte(a))
	if err != nil {
		t.Fatal(err)
	}
	wb, err := live.llmRequest([]byte(b))
	if err != nil {
		t.Fatal(err)
	}
	if d, differ := firstDiff("", wa, wb); differ {
		t.Fatalf("equal runs differ at %s: %s vs %s", d.path, d.want, d.got)
	}
	// A real difference still shows, at its field.
	c := strings.Replace(b, "and /root", "or /root", 1)
	wc, _ := live.llmRequest([]byte(c))
	d, differ := firstDiff("", wa, wc)
	if !differ || d.path != "messages[0].content" || !strings.Contains(d.want, "and <home>") || !strings.Contains(d.got, "or <home>") {
		t.Fatalf("diff = %+v, %v", d, differ)
	}
}

func TestMaskIDsLeavesOtherHex(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"[0123456789abcdef]":                            "[<id16>]",
		"untrusted_input_0123456789abcdef>":             "untrusted_input_<id16>>",
		"task-0123456789abcdef/":                        "task-<id16>/",
		"run 0123456789abcdef0123456789abcdef.":         "run <id32>.",
		"[0123456789ABCDEF]":                            "[0123456789ABCDEF]",
		"[0123456789abcde]":                             "[0123456789abcde]",
		"0123456789abcdef0":                             "0123456789abcdef0",
		"x0123456789abcdef":                             "x0123456789abcdef",
		"0123456789abcdefx":                             "0123456789abcdefx",
		"sha1 0123456789abcdef0123456789abcdef01234567": "sha1 0123456789abcdef0123456789abcdef01234567",
		"":  "",
		"[": "[",
	} {
		if got := maskIDs(in); got != want {
			t.Errorf("maskIDs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMaskDurations(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"status: success · 0.0s · ~10 tokens": "status: success · <duration> · ~10 tokens",
		"status: error · 12.5s":               "status: error · <duration>",
		"a · 5 seconds":                       "a · 5 seconds",
		"a · 5sx":                             "a · 5sx",
		"a · s":                               "a · s",
	} {
		if got := maskDurations(in); got != want {
			t.Errorf("maskDurations(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLenientIgnoresToolContentOnly(t *testing.T) {
	t.Parallel()
	n := newNormalizer(scrub{}, true)
	a, _ := n.llmRequest([]byte(`{"messages":[{"role":"user","content":"q"},{"role":"tool","content":"old","tool_call_id":"c1"}]}`))
	b, _ := n.llmRequest([]byte(`{"messages":[{"role":"user","content":"q"},{"role":"tool","content":"new","tool_call_id":"c1"}]}`))
	if d, differ := firstDiff("", a, b); differ {
		t.Fatalf("lenient: tool content compared: %+v", d)
	}
	c, _ := n.llmRequest([]byte(`{"messages":[{"role":"user","content":"other"},{"role":"tool","content":"new","tool_call_id":"c1"}]}`))
	if _, differ := firstDiff("", a, c); !differ {
		t.Fatal("lenient: a changed user message passed")
	}
}

func TestMCPMessageDropsVolatile(t *testing.T) {
	t.Parallel()
	n := newNormalizer(scrub{}, false)
	a, _ := n.mcpMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"odek","version":"v1"},"_meta":{"progressToken":3}}}`))
	b, _ := n.mcpMessage([]byte(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"clientInfo":{"name":"odek","version":"v2"}}}`))
	if d, differ := firstDiff("", a, b); differ {
		t.Fatalf("volatile fields compared: %+v", d)
	}
	c, _ := n.mcpMessage([]byte(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"clientInfo":{"name":"other"}}}`))
	if d, differ := firstDiff("", a, c); !differ || d.path != "params.clientInfo.name" {
		t.Fatalf("diff = %+v", d)
	}
}

// TestTraceContextIsMasked: a traced run's _meta carries new trace ids on
// every run; the cassette holds neither, and a replay compares them alike.
func TestTraceContextIsMasked(t *testing.T) {
	t.Parallel()
	n := newNormalizer(scrub{}, false)
	a, _ := n.mcpMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"k=v"}}}`))
	b, _ := n.mcpMessage([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"traceparent":"00-11111111111111111111111111111111-2222222222222222-01"}}}`))
	if d, differ := firstDiff("", a, b); differ {
		t.Fatalf("trace context compared: %+v", d)
	}
	rec, _ := encodeJSON(scrub{}.walk(map[string]any{"_meta": map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}, func(s string) string { return s }))
	if strings.Contains(string(rec), "0af765") || !strings.Contains(string(rec), maskedTrace) {
		t.Errorf("recorded: %s", rec)
	}
}

func TestFirstDiffShapes(t *testing.T) {
	t.Parallel()
	n := newNormalizer(scrub{}, false)
	for _, tt := range []struct{ a, b, path string }{
		{`{"a":[1,2]}`, `{"a":[1,2,3]}`, "a"},
		{`{"a":1}`, `{"b":1}`, "a"},
		{`{"a":{"b":1}}`, `{"a":[1]}`, "a"},
		{`{"a":1}`, `{"a":1.0}`, "a"},
		{`{"x":"` + strings.Repeat("p", 300) + `A"}`, `{"x":"` + strings.Repeat("p", 300) + `B"}`, "x"},
	} {
		a, _ := n.llmRequest([]byte(tt.a))
		b, _ := n.llmRequest([]byte(tt.b))
		d, differ := firstDiff("", a, b)
		if !differ || d.path != tt.path {
			t.Errorf("%s vs %s: %+v %v, want path %q", tt.a, tt.b, d, differ, tt.path)
		}
		if len(d.want) > 200 || len(d.got) > 200 {
			t.Errorf("diff values not shortened: %d, %d bytes", len(d.want), len(d.got))
		}
	}
}

func TestMaskDates(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"- Date: 2026-12-01\n":          "- Date: <date>\n",
		"2026-12-01":                    "<date>",
		"12026-12-01":                   "12026-12-01",
		"2026-12-011":                   "2026-12-011",
		"from 2026-01-02 to 2026-01-03": "from <date> to <date>",
		"2026-1-01":                     "2026-1-01",
	} {
		if got := maskDates(in); got != want {
			t.Errorf("maskDates(%q) = %q, want %q", in, got, want)
		}
	}
}

// The system prompt names the platform odek runs on: a cassette recorded
// on a Mac (or an arm64 laptop) must replay on a linux/amd64 CI runner.
func TestPlatformIsNotCompared(t *testing.T) {
	t.Parallel()
	rec := newNormalizer(scrub{}, false)
	a := `{"messages":[{"role":"system","content":"# Environment\n- OS: darwin/arm64\n- Date: 2026-12-01\n"}]}`
	b := `{"messages":[{"role":"system","content":"# Environment\n- OS: linux/amd64\n- Date: 2026-12-02\n"}]}`
	wa, _ := rec.llmRequest([]byte(a))
	wb, _ := rec.llmRequest([]byte(b))
	if d, differ := firstDiff("", wa, wb); differ {
		t.Fatalf("the platform line departs: %+v", d)
	}
	for in, want := range map[string]string{
		"- OS: linux/mips64le\n":  "- OS: <platform>\n",
		"- OS: windows/amd64":     "- OS: <platform>",
		"- OS: linux/amd64 and x": "- OS: <platform> and x",
		"OS: linux/amd64":         "OS: linux/amd64",
		"- OS: linux":             "- OS: linux",
		"- OS: Linux/amd64":       "- OS: Linux/amd64",
	} {
		if got := maskPlatform(in); got != want {
			t.Errorf("maskPlatform(%q) = %q, want %q", in, got, want)
		}
	}
}

// The prompt cache key is the run's or the session's id and may be off in
// a replay: a recording with one replays without it, and the other way.
func TestLLMRequestIgnoresCacheKey(t *testing.T) {
	t.Parallel()
	n := newNormalizer(scrub{}, false)
	plain := `{"model":"m","messages":[{"role":"user","content":"q"}]}`
	for _, keyed := range []string{
		`{"model":"m","user":"ci-7","messages":[{"role":"user","content":"q"}]}`,
		`{"model":"m","prompt_cache_key":"sess-1","messages":[{"role":"user","content":"q"}]}`,
	} {
		a, _ := n.llmRequest([]byte(keyed))
		b, _ := n.llmRequest([]byte(plain))
		if d, differ := firstDiff("", a, b); differ {
			t.Errorf("%s: the cache key was compared: %+v", keyed, d)
		}
	}
}
