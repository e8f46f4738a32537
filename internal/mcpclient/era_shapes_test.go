package mcpclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/artifact"
)

func TestHeaderValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"get_weather", "get_weather"},
		{"file:///projects/app/config.json", "file:///projects/app/config.json"},
		{"", ""},
		{"a b\tc", "a b\tc"},
		{"!~", "!~"}, // the ends of visible ASCII
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		// Whitespace at one end is enough.
		{" lead", "=?base64?IGxlYWQ=?="},
		{"\ttab", "=?base64?CXRhYg==?="},
		{"trail\t", "=?base64?dHJhaWwJ?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"\x7f", "=?base64?fw==?="},
		// Only a value with both ends of the sentinel is mistakable for one.
		{"=?base64?half", "=?base64?half"},
		{"why?=", "why?="},
	}
	for _, tt := range tests {
		if got := headerValue(tt.in); got != tt.want {
			t.Errorf("headerValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRequestHeaders(t *testing.T) {
	tests := []struct {
		msg, method, name string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, "tools/call", "echo"},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"demo://r/1"}}`, "resources/read", "demo://r/1"},
		{`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"p ü"}}`, "prompts/get", "=?base64?cCDDvA==?="},
		// The Tasks extension routes a task's requests by its id.
		{`{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{"taskId":"t-1"}}`, "tasks/get", "t-1"},
		{`{"jsonrpc":"2.0","id":9,"method":"tasks/update","params":{"taskId":"t-1","inputResponses":{}}}`, "tasks/update", "t-1"},
		{`{"jsonrpc":"2.0","id":10,"method":"tasks/cancel","params":{"taskId":"t ü"}}`, "tasks/cancel", "=?base64?dCDDvA==?="},
		// A call or read that names nothing gets no Mcp-Name.
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}}`, "tools/call", ""},
		{`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{}}`, "resources/read", ""},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"name":"ignored"}}`, "tools/list", ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`, "notifications/cancelled", ""},
		{`{"jsonrpc":"2.0","id":5,"result":{}}`, "", ""},
		{`not json`, "", ""},
	}
	for _, tt := range tests {
		h := http.Header{}
		setRequestHeaders(h, []byte(tt.msg), nil)
		if h.Get("Mcp-Method") != tt.method || h.Get("Mcp-Name") != tt.name {
			t.Errorf("%s: Mcp-Method %q Mcp-Name %q, want %q %q", tt.msg, h.Get("Mcp-Method"), h.Get("Mcp-Name"), tt.method, tt.name)
		}
	}
}

func TestChooseVersion(t *testing.T) {
	tests := []struct {
		supported []string
		version   string
		era       Era
		ok        bool
	}{
		{[]string{"2026-07-28", "2025-11-25"}, "2026-07-28", EraModern, true},
		{[]string{"2025-11-25", "2025-06-18", "2025-03-26"}, "2025-03-26", EraLegacy, true},
		{[]string{"2025-11-25"}, "2025-11-25", EraLegacy, true},
		{[]string{"2099-01-01"}, "", "", false},
		{nil, "", "", false},
	}
	for _, tt := range tests {
		v, era, ok := chooseVersion(tt.supported)
		if v != tt.version || era != tt.era || ok != tt.ok {
			t.Errorf("chooseVersion(%v) = %q %q %v, want %q %q %v", tt.supported, v, era, ok, tt.version, tt.era, tt.ok)
		}
	}
}

func TestClassifyProbe(t *testing.T) {
	code := func(c int64) *int64 { return &c }
	tests := []struct {
		name string
		err  error
		http bool
		want probeSignal
	}{
		{"method not found", &RPCError{Code: -32601}, false, probeSignal{legacy: true}},
		{"go-sdk code 0", &RPCError{Code: 0, Message: "x"}, false, probeSignal{legacy: true}},
		{"unsupported with list", &RPCError{Code: -32022, Supported: []string{"2099-01-01"}}, false, probeSignal{modern: true, unsupported: []string{"2099-01-01"}}},
		// "supported":[] is no list: modern, with nothing to choose from.
		{"unsupported with an empty list", &RPCError{Code: -32022, Supported: []string{}}, false, probeSignal{modern: true}},
		{"unsupported without list", &RPCError{Code: -32022}, false, probeSignal{modern: true}},
		{"header mismatch", &RPCError{Code: -32020}, true, probeSignal{modern: true}},
		{"missing capability", &RPCError{Code: -32021}, false, probeSignal{modern: true}},
		{"stdio silence", &timeoutError{}, false, probeSignal{legacy: true}},
		{"http silence", &timeoutError{}, true, probeSignal{legacy: true}},
		{"http 400 legacy body", &hTTPStatusError{Code: 400, RPCCode: code(-32000)}, true, probeSignal{legacy: true}},
		{"http 404 empty", &hTTPStatusError{Code: 404}, true, probeSignal{legacy: true}},
		{"http 400 modern", &hTTPStatusError{Code: 400, RPCCode: code(-32022), Supported: []string{"2027-01-01"}}, true, probeSignal{modern: true, unsupported: []string{"2027-01-01"}}},
		{"http 400 modern, empty list", &hTTPStatusError{Code: 400, RPCCode: code(-32022), Supported: []string{}}, true, probeSignal{modern: true}},
		{"http 500", &hTTPStatusError{Code: 500}, true, probeSignal{legacy: true}},
		{"http 503 with a legacy body", &hTTPStatusError{Code: 503, RPCCode: code(-32603)}, true, probeSignal{legacy: true}},
		{"a result without supportedVersions", newError("s", "server/discover", classMCP, &notDiscoverError{errors.New("lists no supportedVersions")}), false, probeSignal{legacy: true}},
		{"refused connection", newError("s", "server/discover", classMCP, &requestError{id: 1, err: errors.New("connection refused")}), true, probeSignal{}},
		{"dead", &ExitError{Status: "exit status 1"}, false, probeSignal{}},
		{"wrapped", newError("s", "server/discover", classMCP, &RPCError{Code: -32601}), false, probeSignal{legacy: true}},
	}
	for _, tt := range tests {
		got := classifyProbe(tt.err)
		if got.modern != tt.want.modern || got.legacy != tt.want.legacy || strings.Join(got.unsupported, ",") != strings.Join(tt.want.unsupported, ",") ||
			(got.unsupported == nil) != (tt.want.unsupported == nil) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestRPCErrorQuotesSupported(t *testing.T) {
	w := &wireError{Code: -32022, Message: "Unsupported protocol version", Data: json.RawMessage(`{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}`)}
	got := w.toRPCError().Error()
	want := `MCP error -32022: Unsupported protocol version (server supports ["2026-07-28", "2025-11-25"]; odek speaks 2026-07-28, 2025-03-26, 2025-11-25, 2025-06-18, 2024-11-05)`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	many := make([]string, 40)
	for i := range many {
		many[i] = strings.Repeat("v", 100)
	}
	if q := quoteVersions(many); strings.Count(q, `"`) != 2*maxSupportedVersionsQuoted || !strings.Contains(q, "(24 more)") || len(q) > 2000 {
		t.Errorf("quoteVersions is not bounded: %d bytes %q…", len(q), clip(q, 80))
	}
}

// An HTTP status names the server's versions only when its body listed
// some: a plain 500 must not claim "server supports ;".
func TestHTTPStatusErrorQuotesSupportedOnlyWhenListed(t *testing.T) {
	tests := []struct {
		err  *hTTPStatusError
		want string
	}{
		{&hTTPStatusError{Code: 500, Body: "boom"}, "http 500: boom"},
		{&hTTPStatusError{Code: 400, Body: "old", Supported: []string{"2099-01-01"}},
			`http 400: old (server supports ["2099-01-01"]; odek speaks 2026-07-28, 2025-03-26, 2025-11-25, 2025-06-18, 2024-11-05)`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
}

func TestParseDiscover(t *testing.T) {
	tests := []struct{ raw, err string }{
		{`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}`, ""},
		{`{"supportedVersions":["2026-07-28"]}`, ""},
		{`{"supportedVersions":[]}`, "lists no supportedVersions"},
		{`{"resultType":"input_required","supportedVersions":["2026-07-28"]}`, `resultType "input_required"`},
		{`{"supportedVersions":"2026-07-28"}`, "malformed"},
		{`[]`, "malformed"},
	}
	for _, tt := range tests {
		_, err := parseDiscover([]byte(tt.raw))
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("parseDiscover(%s) err = %v, want %q", tt.raw, err, tt.err)
		}
	}
}

func TestWithStructured(t *testing.T) {
	text := func(s string) artifact.Content { return artifact.Content{Type: "text", Text: s} }
	tests := []struct {
		name       string
		items      []artifact.Content
		structured string
		want       []string // texts of the result
	}{
		{"only structured", nil, `{"a": 1}`, []string{`{"a":1}`}},
		{"empty text", []artifact.Content{text("  ")}, `{"a":1}`, []string{`{"a":1}`}},
		{"same JSON as text", []artifact.Content{text(`{"b":2, "a":1}`)}, `{"a":1,"b":2}`, []string{`{"b":2, "a":1}`}},
		{"text carries every value", []artifact.Content{text("file body\n")}, `{"content":"file body\n"}`, []string{"file body\n"}},
		{"text lacks a value", []artifact.Content{text("Sunny")}, `{"temp":21.5}`, []string{"Sunny", structuredLabel + `{"temp":21.5}`}},
		{"null", []artifact.Content{text("x")}, `null`, []string{"x"}},
		{"absent", []artifact.Content{text("x")}, ``, []string{"x"}},
		{"invalid", []artifact.Content{text("x")}, `{`, []string{"x"}},
		{"scalar", nil, `"just a string"`, []string{`"just a string"`}},
		{"null alone", nil, `null`, nil},
		// The same JSON with an escape: its decoded value is not verbatim in
		// the text, so only sameJSON tells that the text says it all.
		{"same object, escaped", []artifact.Content{text(`{"a":"x\"y"}`)}, `{"a":"x\"y"}`, []string{`{"a":"x\"y"}`}},
		{"same array, escaped", []artifact.Content{text(`["x\"y"]`)}, `["x\"y"]`, []string{`["x\"y"]`}},
		// A JSON scalar in the text is not taken for the structure.
		{"scalar text", []artifact.Content{text(`"x\"y"`)}, `"x\"y"`, []string{`"x\"y"`, structuredLabel + `"x\"y"`}},
		// A number Go cannot hold: unequal to the text's null, shown.
		{"overflowing number", []artifact.Content{text(`{"a":null}`)}, `{"a":1e400}`, []string{`{"a":null}`, structuredLabel + `{"a":1e400}`}},
		{"blank text beside an image", []artifact.Content{text(" "), {Type: "image"}}, `{"a":1}`, []string{" ", "", structuredLabel + `{"a":1}`}},
	}
	for _, tt := range tests {
		got := withStructured(tt.items, json.RawMessage(tt.structured))
		var texts []string
		for _, it := range got {
			texts = append(texts, it.Text)
		}
		if strings.Join(texts, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: %q, want %q", tt.name, texts, tt.want)
		}
	}
}

func TestElicitAnswers(t *testing.T) {
	cfg := map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`), "extra": json.RawMessage(`1`)}
	c := &Client{name: "s", cfg: ServerConfig{Elicitation: cfg}}
	form := `{"mode":"form","message":"m","requestedSchema":{"properties":{"name":{},"age":{}},"required":["name"]}}`
	tests := []struct {
		method, params, err string
	}{
		{methodElicitationCreate, form, ""},
		{methodElicitationCreate, `{"message":"m","requestedSchema":{"properties":{"name":{}}}}`, ""},
		{methodElicitationCreate, `{"mode":"url","url":"https://x"}`, `mode "url" needs a person`},
		{methodElicitationCreate, `{"requestedSchema":{"properties":{"age":{}},"required":["age"]}}`, `required field "age" has no value`},
		{methodElicitationCreate, `[1]`, "malformed elicitation request"},
		{"sampling/createMessage", `{}`, "odek answers only elicitation requests"},
	}
	for _, tt := range tests {
		answer, err := c.elicit(context.Background(), "t", tt.method, json.RawMessage(tt.params))
		if tt.err == "" {
			b, _ := json.Marshal(answer)
			if err != nil || string(b) != `{"action":"accept","content":{"name":"octocat"}}` {
				t.Errorf("%s %s: %s, %v", tt.method, tt.params, b, err)
			}
			continue
		}
		var de *inputDeclinedError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s %s: err = %v, want %q", tt.method, tt.params, err, tt.err)
		}
	}
	// Without configured values a legacy elicitation/create is declined.
	bare := &Client{name: "s"}
	if b, _ := json.Marshal(bare.answerElicitation(context.Background(), json.RawMessage(form))); string(b) != `{"action":"decline"}` {
		t.Errorf("legacy elicitation without config answered %s", b)
	}
}

func FuzzParseDiscover(f *testing.F) {
	f.Add([]byte(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`))
	f.Add([]byte(`{"supportedVersions":["2025-11-25","2024-11-05"]}`))
	f.Add([]byte(`{"supportedVersions":[1,2]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		info, err := parseDiscover(raw)
		if err != nil {
			return
		}
		if len(info.Supported) == 0 {
			t.Fatal("a parsed DiscoverResult without versions")
		}
		if v, era, ok := chooseVersion(info.Supported); ok && (v == "" || era == "") {
			t.Fatalf("chooseVersion ok with %q %q", v, era)
		}
		_ = quoteVersions(info.Supported)
	})
}

func FuzzHeaderValue(f *testing.F) {
	for _, s := range []string{"echo", " x", "世界", "=?base64?x?=", "a\r\nInjected: 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := headerValue(s)
		for i := 0; i < len(v); i++ {
			if c := v[i]; c != ' ' && c != '\t' && (c < 0x21 || c > 0x7e) {
				t.Fatalf("headerValue(%q) = %q holds byte %#x", s, v, c)
			}
		}
		if enc, ok := strings.CutPrefix(v, sentinelPrefix); ok && strings.HasSuffix(enc, sentinelSuffix) {
			b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, sentinelSuffix))
			if err != nil || string(b) != s {
				t.Fatalf("headerValue(%q) = %q does not decode back (%v)", s, v, err)
			}
		} else if v != s {
			t.Fatalf("headerValue(%q) = %q: changed without the sentinel", s, v)
		}
	})
}

func FuzzWithStructured(f *testing.F) {
	f.Add("text", []byte(`{"a":[1,"x",true,null]}`))
	f.Add("", []byte(`{"content":"body"}`))
	f.Add("{\"a\":1}", []byte(`{"a":1}`))
	f.Fuzz(func(t *testing.T, text string, structured []byte) {
		var items []artifact.Content
		if text != "" {
			items = []artifact.Content{{Type: "text", Text: text}}
		}
		got := withStructured(items, structured)
		if len(got) > len(items)+1 || (len(items) > 0 && len(got) == 0) {
			t.Fatalf("%d items in, %d out", len(items), len(got))
		}
	})
}

func FuzzInputRequired(f *testing.F) {
	f.Add([]byte(`{"resultType":"input_required","requestState":"s","inputRequests":{"a":{"method":"elicitation/create","params":{"requestedSchema":{"properties":{"name":{}},"required":["name"]}}}}}`))
	f.Add([]byte(`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var res callResultWire
		if json.Unmarshal(raw, &res) != nil {
			return
		}
		c := &Client{name: "s", cfg: ServerConfig{Elicitation: map[string]json.RawMessage{"name": json.RawMessage(`"x"`)}}}
		next, err := c.answerInput(context.Background(), "t", &res, map[string]any{"name": "t", "arguments": json.RawMessage(`{}`)})
		if err != nil {
			return
		}
		if resp, ok := next["inputResponses"].(map[string]any); ok {
			for k := range resp {
				if _, asked := res.InputRequests[k]; !asked {
					t.Fatalf("answered %q, which was never asked", k)
				}
			}
		}
		if _, err := json.Marshal(next); err != nil {
			t.Fatalf("retry params do not encode: %v", err)
		}
	})
}

func TestRenderResource(t *testing.T) {
	c := &Client{name: "s"}
	tests := []struct{ raw, want, err string }{
		{`{"contents":[{"uri":"a","text":"one"},{"uri":"b","text":"two"}]}`, "one\ntwo", ""},
		{`{"resultType":"complete","contents":[{"uri":"x","mimeType":"image/png","blob":"AAAA"}]}`, "[binary resource x (image/png), 4 bytes base64 omitted]", ""},
		{`{"resultType":"input_required","inputRequests":{}}`, "", "needs input"},
		{`{"resultType":"later"}`, "", `unknown resultType "later"`},
		{`{"contents":{}}`, "", "malformed resources/read result"},
	}
	for _, tt := range tests {
		got, err := c.renderResource("resources/read x", json.RawMessage(tt.raw))
		if got != tt.want || (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: %q, %v; want %q, %q", tt.raw, got, err, tt.want, tt.err)
		}
	}
}

func TestResourceArgs(t *testing.T) {
	tests := []struct {
		raw   string
		limit int
		err   string
	}{
		{`{"server":"s","uri":"u"}`, defaultResourceReadLimit, ""},
		{`{"server":"s","uri":"u","limit":999999}`, maxResourceReadLimit, ""},
		{`{"server":"s","uri":"u","offset":-1}`, 0, "offset -1 must be >= 0"},
		{`{"server":"s"}`, 0, "server and uri are required"},
		{`[]`, 0, "invalid arguments"},
	}
	for _, tt := range tests {
		a, err := parseResourceArgs(json.RawMessage(tt.raw))
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) || (err == nil && a.Limit != tt.limit) {
			t.Errorf("%s: %+v, %v", tt.raw, a, err)
		}
	}
}

func TestLinkSetIsBounded(t *testing.T) {
	var l linkSet
	for i := 0; i < maxLinks+10; i++ {
		l.add(strings.Repeat("u", i%50) + string(rune('a'+i%26)) + strings.Repeat("x", i/26))
	}
	l.add(strings.Repeat("z", 5000)) // too long to remember
	if len(l.uris) != maxLinks || l.has(strings.Repeat("z", 5000)) {
		t.Errorf("%d links remembered", len(l.uris))
	}
	var m linkSet // a URI of 4096 bytes is the longest remembered
	m.add(strings.Repeat("y", 4096))
	m.add(strings.Repeat("w", 4097))
	if !m.has(strings.Repeat("y", 4096)) || m.has(strings.Repeat("w", 4097)) {
		t.Errorf("links of 4096 and 4097 bytes: %d remembered", len(m.uris))
	}
}

func FuzzRenderResource(f *testing.F) {
	f.Add([]byte(`{"contents":[{"uri":"a","text":"one"},{"uri":"b","blob":"AA=="}]}`))
	f.Add([]byte(`{"resultType":"input_required"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c := &Client{name: "s"}
		text, err := c.renderResource("op", raw)
		if err == nil && len(text) > 8*len(raw)+64 {
			t.Fatalf("%d bytes of result rendered as %d", len(raw), len(text))
		}
	})
}
