package mcpclient

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestClassifyShapes(t *testing.T) {
	tests := []struct {
		line   string
		kind   kind
		id     string
		method string
		result string
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a \"quoted\" }]{["}]}}`, kindResponse, `1`, "", `{"content":[{"type":"text","text":"a \"quoted\" }]{["}]}`},
		{` {"id" : "x" , "method":"ping"} `, kindRequest, `"x"`, "ping", ""},
		{`{"method":"notifications/progress","params":{"p":[1,2]}}`, kindNotification, "", "notifications/progress", ""},
		{`{"id":2,"error":{"code":0,"message":"m"}}`, kindResponse, `2`, "", ""},
		{`{"\u0069d":3,"result":null}`, kindResponse, `3`, "", `null`},
		{`{"id":4,"result":"a\\"}`, kindResponse, `4`, "", `"a\\"`},
		{`{"id":null,"result":{}}`, kindInvalid, "", "", ""},
		{`{"ID":5,"result":{}}`, kindInvalid, "", "", ""}, // JSON-RPC member names are exact
		{`{"id":6,"method":7}`, kindInvalid, "", "", ""},
		{`{"id":7,"result":{}} trailing`, kindInvalid, "", "", ""},
		{`{"id":8,"result":"unterminated}`, kindInvalid, "", "", ""},
		{`{"id":9,"result":{"a":[1,2}`, kindInvalid, "", "", ""},
		{`{"id" 10}`, kindInvalid, "", "", ""},
		{`[{"id":1,"result":{}}]`, kindInvalid, "", "", ""},
		{`starting server...`, kindInvalid, "", "", ""},
		{``, kindInvalid, "", "", ""},
		{`{}`, kindInvalid, "", "", ""},
	}
	for _, tt := range tests {
		k, m := classify([]byte(tt.line))
		if k != tt.kind {
			t.Errorf("classify(%s) kind = %v, want %v", tt.line, k, tt.kind)
			continue
		}
		if k == kindInvalid {
			continue
		}
		if string(m.ID) != tt.id || m.Method != tt.method || (tt.result != "" && string(m.Result) != tt.result) {
			t.Errorf("classify(%s) = id %s method %q result %s", tt.line, m.ID, m.Method, m.Result)
		}
	}
}

// referenceClassify is classify written with encoding/json, exact keys and
// last-wins duplicates: for valid JSON the fast scan must agree with it.
func referenceClassify(line []byte) (kind, map[string]json.RawMessage) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil || obj == nil {
		return kindInvalid, nil
	}
	var method string
	if raw, ok := obj["method"]; ok && json.Unmarshal(raw, &method) != nil {
		return kindInvalid, nil
	}
	id := obj["id"]
	hasID := len(id) > 0 && string(id) != "null"
	switch {
	case method != "" && hasID:
		return kindRequest, obj
	case method != "":
		return kindNotification, obj
	case hasID && (len(obj["result"]) > 0 || len(obj["error"]) > 0):
		return kindResponse, obj
	}
	return kindInvalid, obj
}

func FuzzClassifyMatchesReference(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"x":"}\"{"}}`))
	f.Add([]byte(`{"id":"a","method":"roots/list","params":{}}`))
	f.Add([]byte(`{"id":1,"id":2,"error":{"code":-1}}`))
	f.Add([]byte(`{"\u0072esult":[],"id":0}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		k, m := classify(line) // must never panic, whatever the bytes
		if !json.Valid(line) {
			return
		}
		want, obj := referenceClassify(line)
		if k != want {
			t.Fatalf("classify(%q) = %v, reference %v", line, k, want)
		}
		if k == kindInvalid {
			return
		}
		for key, got := range map[string][]byte{"id": m.ID, "result": m.Result, "error": m.Error, "params": m.Params} {
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(obj[key])) {
				t.Fatalf("classify(%q) %s = %q, reference %q", line, key, got, obj[key])
			}
		}
	})
}

func BenchmarkClassify10MiB(b *testing.B) {
	text := bytes.Repeat([]byte("x"), 10<<20)
	line := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + string(text) + `"}]}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if k, _ := classify(line); k != kindResponse {
			b.Fatal("not a response")
		}
	}
}

// scanObject accepts exactly the JSON objects (structurally) and hands over
// every member as it is written, escapes and nesting included.
func TestScanObject(t *testing.T) {
	tests := []struct {
		in      string
		ok      bool
		members string // key=value|key=value
	}{
		{`{}`, true, ""},
		{" \t{ \r\n} \n", true, ""},
		{`{"a":1}`, true, `"a"=1`},
		{` { "a" : true , "b":null} `, true, `"a"=true|"b"=null`},
		{`{"a":[1,{"b":"]}"}],"c":{"d":[]}}`, true, `"a"=[1,{"b":"]}"}]|"c"={"d":[]}`},
		{`{"a":"\"","b":"\\","c":"x\\\"y"}`, true, `"a"="\""|"b"="\\"|"c"="x\\\"y"`},
		{`{"\"k":-1.5e3}`, true, `"\"k"=-1.5e3`},
		{`{}x`, false, ""},
		{`{"a":1}}`, false, ""},
		{`{"a":1,}`, false, ""},
		{`{,}`, false, ""},
		{`{"a"}`, false, ""},
		{`{"a":}`, false, ""},
		{`{"a":1 "b":2}`, false, ""},
		{`{a:1}`, false, ""},
		{`{"a":[1,2}`, false, ""},
		{`["a"]`, false, ""},
		{`"a"`, false, ""},
		{` `, false, ""},
	}
	for _, tt := range tests {
		var got []string
		ok := scanObject([]byte(tt.in), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
		if ok != tt.ok || ok && strings.Join(got, "|") != tt.members {
			t.Errorf("scanObject(%q) = %v %q, want %v %q", tt.in, ok, got, tt.ok, tt.members)
		}
	}
}

// A message cut anywhere (a server killed mid-write, a line split) is never
// an object, and scanning it never runs past its end.
func TestScanObjectEveryPrefixRejected(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"a \"q\" \\ }]"}],"isError":false}}`,
		`{ "id" : "x\\\"" , "method" : "ping" , "params" : [ 1 , -2.5 , null , true ] }`,
	} {
		if !scanObject([]byte(msg), func(_, _ []byte) {}) {
			t.Fatalf("whole message rejected: %s", msg)
		}
		for n := range len(msg) {
			if scanObject([]byte(msg[:n]), func(_, _ []byte) {}) {
				t.Errorf("prefix accepted: %q", msg[:n])
			}
		}
	}
}
