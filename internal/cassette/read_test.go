package cassette

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadLLMRefusesBadLines(t *testing.T) {
	t.Parallel()
	ok := `{"seq":1,"request":{"model":"m"},"response":{"status":200,"content_type":"application/json","body":{"id":"x"}}}`
	tests := []struct {
		name, in, want string
	}{
		{"unknown field", `{"seq":1,"request":{},"response":{"status":200,"body":{}},"extra":1}`, `unknown field "extra"`},
		{"seq out of order", ok + "\n" + strings.Replace(ok, `"seq":1`, `"seq":3`, 1), "seq 3, want 2"},
		{"seq zero", strings.Replace(ok, `"seq":1`, `"seq":0`, 1), "seq 0, want 1"},
		{"request not object", `{"seq":1,"request":[1],"response":{"status":200,"body":{}}}`, "request: want a JSON object"},
		{"two bodies", `{"seq":1,"request":{},"response":{"status":200,"body":{},"text":"x"}}`, "exactly one of"},
		{"no body", `{"seq":1,"request":{},"response":{"status":200}}`, "exactly one of"},
		{"bad status", `{"seq":1,"request":{},"response":{"status":700,"body":{}}}`, "status 700"},
		{"blank line", ok + "\n\n", "line 2"},
		{"two values", ok + ` {}`, "more than one JSON value"},
		{"not json", `{"seq":`, "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadLLM(strings.NewReader(tt.in), "llm.jsonl")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "llm.jsonl") {
				t.Errorf("err = %v, want it to name the stream", err)
			}
		})
	}
	got, err := ReadLLM(strings.NewReader(ok+"\n"+strings.Replace(ok, `"seq":1`, `"seq":2`, 1)+"\n"), "llm.jsonl")
	if err != nil || len(got) != 2 {
		t.Fatalf("valid stream: %d entries, %v", len(got), err)
	}
}

func TestReadMCPAndTool(t *testing.T) {
	t.Parallel()
	if _, err := ReadMCP(strings.NewReader(`{"seq":1,"dir":"sideways","msg":{}}`), "m"); err == nil || !strings.Contains(err.Error(), `dir "sideways"`) {
		t.Errorf("bad dir: %v", err)
	}
	if _, err := ReadMCP(strings.NewReader(`{"seq":1,"dir":"send","msg":"x"}`), "m"); err == nil || !strings.Contains(err.Error(), "msg: want a JSON object") {
		t.Errorf("bad msg: %v", err)
	}
	if _, err := ReadTool(strings.NewReader(`{"seq":1,"tool":"","args":{}}`), "t"); err == nil || !strings.Contains(err.Error(), "tool: empty") {
		t.Errorf("empty tool: %v", err)
	}
	if _, err := ReadTool(strings.NewReader(`{"seq":1,"tool":"shell"}`), "t"); err == nil || !strings.Contains(err.Error(), "args") {
		t.Errorf("no args: %v", err)
	}
}

func TestReadLineCap(t *testing.T) {
	t.Parallel()
	long := `{"seq":1,"tool":"shell","args":{},"result":"` + strings.Repeat("a", MaxLineBytes) + `"}`
	_, err := ReadTool(strings.NewReader(long), "tool-shell.jsonl")
	if err == nil || !strings.Contains(err.Error(), "line longer than the 32 MiB cap") {
		t.Fatalf("err = %v, want the line cap", err)
	}
}

func TestReadMeta(t *testing.T) {
	t.Parallel()
	if _, err := ReadMeta([]byte(`{"format":"odek.cassette/v2"}`)); err == nil || !strings.Contains(err.Error(), `want "odek.cassette/v1"`) {
		t.Errorf("wrong format: %v", err)
	}
	if _, err := ReadMeta([]byte(`{"format":"odek.cassette/v1","bogus":1}`)); err == nil {
		t.Error("unknown field accepted")
	}
	m, err := ReadMeta([]byte(`{"format":"odek.cassette/v1","roots":{"workdir":"/w"}}`))
	if err != nil || m.Roots["workdir"] != "/w" {
		t.Errorf("valid meta: %+v %v", m, err)
	}
}

// FuzzRead feeds every stream reader arbitrary bytes: never a panic, and
// what one accepts has seq 1..n.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"seq":1,"request":{},"response":{"status":200,"events":["data: {}"]}}`))
	f.Add([]byte(`{"seq":1,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{}}}` + "\n"))
	f.Add([]byte(`{"seq":1,"tool":"shell","args":{"command":"ls"},"result":"x"}`))
	f.Add([]byte("{\"seq\":1}\n{\"seq\":2}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if es, err := ReadLLM(bytes.NewReader(b), "f"); err == nil {
			for i, e := range es {
				if e.Seq != i+1 {
					t.Fatalf("llm entry %d has seq %d", i, e.Seq)
				}
			}
		}
		if es, err := ReadMCP(bytes.NewReader(b), "f"); err == nil {
			for i, e := range es {
				if e.Seq != i+1 || e.Dir != DirSend && e.Dir != DirRecv {
					t.Fatalf("mcp entry %d: %+v", i, e)
				}
			}
		}
		if es, err := ReadTool(bytes.NewReader(b), "f"); err == nil {
			for i, e := range es {
				if e.Seq != i+1 || e.Tool == "" {
					t.Fatalf("tool entry %d: %+v", i, e)
				}
			}
		}
		_, _ = ReadMeta(b)
	})
}
