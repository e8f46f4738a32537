package mcpclient

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

func readAll(r io.Reader, max int64) ([]string, error) {
	lr := newLineReader(r, max)
	var out []string
	for {
		line, err := lr.next()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, string(line))
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("a", 200<<10)
	tests := []struct {
		name     string
		in       string
		max      int64
		want     []string
		observed int64 // >0: expect ResponseTooLargeError with at least this
	}{
		{"lines", "a\nbb\r\n\nccc", 10, []string{"a", "bb", "", "ccc"}, 0},
		{"exact limit", "12345\n", 5, []string{"12345"}, 0},
		{"over limit", "123456\n", 5, nil, 6},
		{"long line within limit", long + "\nx\n", 300 << 10, []string{long, "x"}, 0},
		{"long line over limit", long + "\n", 100 << 10, nil, 100<<10 + 1},
		{"no newline over limit", long, 1000, nil, 1001},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(strings.NewReader(tc.in), tc.max)
			var tl *ResponseTooLargeError
			if tc.observed > 0 {
				if !errors.As(err, &tl) || tl.Observed < tc.observed || tl.Limit != tc.max {
					t.Fatalf("err = %v, want too large (observed >= %d)", err, tc.observed)
				}
				return
			}
			if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// Short lines take the window's fast path: reading one costs about its own
// size, never a whole 1 MiB chunk (a chatty server would otherwise make the
// reader allocate a mebibyte per line).
func TestLineReaderShortLinesAllocateLittle(t *testing.T) {
	const lines = 200
	in := strings.Repeat(strings.Repeat("s", 99)+"\n", lines)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := readAll(strings.NewReader(in), 1<<20)
	runtime.ReadMemStats(&after)
	if err != nil || len(got) != lines || got[0] != strings.Repeat("s", 99) {
		t.Fatalf("read %d lines, %v", len(got), err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("allocated %d KiB for %d lines of 100 bytes", grew>>10, lines)
	}
}

// endless yields 'x' forever, like a server that never ends its line.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestLineReaderEndlessLineStops(t *testing.T) {
	_, err := newLineReader(endless{}, 4<<20).next()
	var tl *ResponseTooLargeError
	if !errors.As(err, &tl) || tl.Observed <= 4<<20 || tl.Observed > 4<<20+readBufferSize {
		t.Fatalf("err = %v", err)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		in   string
		want kind
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, kindResponse},
		{`{"jsonrpc":"2.0","id":"abc","result":null}`, kindResponse},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":0,"message":"x"}}`, kindResponse},
		{`{"jsonrpc":"2.0","id":0,"method":"ping"}`, kindRequest},
		{`{"jsonrpc":"2.0","id":"r","method":"roots/list","params":{}}`, kindRequest},
		{`{"jsonrpc":"2.0","method":"notifications/progress"}`, kindNotification},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`, kindInvalid},
		{`{"jsonrpc":"2.0","id":3}`, kindInvalid},
		{`not json`, kindInvalid},
		{`[{"id":1,"result":{}}]`, kindInvalid},
		{``, kindInvalid},
	}
	for _, tc := range tests {
		if got, _ := classify([]byte(tc.in)); got != tc.want {
			t.Errorf("classify(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
	_, m := classify([]byte(`{"id":2,"error":{"code":0,"message":"x"}}`))
	if !m.isError() || m.rpcError().Message != "x" {
		t.Error("error with code 0 not recognised")
	}
	for in, want := range map[string]bool{`1`: true, `"1"`: false, `1.5`: false, `-1`: false, `0`: false} {
		if _, ok := (&inbound{ID: []byte(in)}).intID(); ok != want {
			t.Errorf("intID(%s) = %v", in, ok)
		}
	}
}

func TestEncode(t *testing.T) {
	b, err := encode(&outbound{ID: []byte("0"), Result: struct{}{}})
	if err != nil || string(b) != `{"jsonrpc":"2.0","id":0,"result":{}}`+"\n" {
		t.Fatalf("%s %v", b, err)
	}
	b, _ = encode(&outbound{Method: "notifications/initialized"})
	if string(b) != `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n" {
		t.Fatalf("%s", b)
	}
	b, _ = requestBytes(7, "tools/call", map[string]string{"name": "<a&b>"})
	if string(b) != `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"<a&b>"}}`+"\n" {
		t.Fatalf("%s", b)
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\r\n"), uint16(4))
	f.Add([]byte(strings.Repeat("x", 70000)+"\n"), uint16(100))
	f.Fuzz(func(t *testing.T, in []byte, max uint16) {
		limit := int64(max) + 1
		lr := newLineReader(bytes.NewReader(in), limit)
		total := 0
		for {
			line, err := lr.next()
			if err != nil {
				var tl *ResponseTooLargeError
				if errors.As(err, &tl) && tl.Observed <= limit {
					t.Fatalf("too large with observed %d <= limit %d", tl.Observed, limit)
				}
				return
			}
			if int64(len(line)) > limit || bytes.ContainsRune(line, '\n') {
				t.Fatalf("bad line %q (limit %d)", line, limit)
			}
			total += len(line) + 1
			if total > len(in)+1 {
				t.Fatal("read more than the input")
			}
		}
	})
}

func FuzzClassify(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add([]byte(`{"id":"x","method":"ping"}`))
	f.Add([]byte(`{"method":"n"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		k, m := classify(in)
		switch k {
		case kindRequest:
			if m.Method == "" || len(m.ID) == 0 {
				t.Fatal("request without method or id")
			}
		case kindResponse:
			if len(m.ID) == 0 || m.Method != "" {
				t.Fatal("response shape")
			}
			_ = m.isError()
			_, _ = m.intID()
		}
	})
}

func FuzzSSE(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"id\":1}\n\n: comment\ndata: a\ndata: b\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		sr := newSSEReader(bytes.NewReader(in), 256)
		for range len(in) + 1 {
			data, err := sr.next()
			if err != nil {
				return
			}
			if len(data) > 256 {
				t.Fatalf("event data %d bytes over the cap", len(data))
			}
		}
	})
}
