package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadStreamTypedLines(t *testing.T) {
	in := `{"type":"subagent_started","task_id":"task-0123456789abcdef","pid":7,"depth":1,"timeout_s":60,"max_iter":15}
{"type":"tool_call","name":"read_file","data":{"path":"a"}}

{"type":"future_type","x":1}
{"type":"result","task_id":"task-0123456789abcdef","result":{"status":"success","summary":"done","tokens_used":12,"iterations":1,"duration_seconds":0.5,"unknown":true}}
`
	var got []string
	s, err := ReadStream(strings.NewReader(in), StreamLimits{}, func(l *Line) { got = append(got, l.Type) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "subagent_started,tool_call,future_type" {
		t.Fatalf("telemetry = %v", got)
	}
	if s.Result == nil || s.Result.Status != StatusSuccess || s.Result.Summary != "done" || s.Result.TokensUsed != 12 {
		t.Fatalf("result = %+v", s.Result)
	}
	if s.Lines != 5 || s.Raw != "" {
		t.Fatalf("lines = %d, raw = %q", s.Lines, s.Raw)
	}
}

func TestReadStreamLegacyAndRaw(t *testing.T) {
	s, err := ReadStream(strings.NewReader("panic: boom\n{\"status\":\"error\",\"error\":\"x\"}"), StreamLimits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Result == nil || s.Result.Status != StatusError || s.Result.Error != "x" {
		t.Fatalf("legacy result = %+v", s.Result)
	}
	if s.Raw != "panic: boom" {
		t.Fatalf("raw = %q", s.Raw)
	}
}

func TestReadStreamRawCap(t *testing.T) {
	big := strings.Repeat("é", maxRawBytes) // 2 bytes each: twice the cap
	s, err := ReadStream(strings.NewReader(big+"\n"), StreamLimits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(s.Raw, "\n"+rawTruncatedMarker) || len(s.Raw) > maxRawBytes+len(rawTruncatedMarker)+1 {
		t.Fatalf("raw is %d bytes, ends %q", len(s.Raw), s.Raw[len(s.Raw)-40:])
	}
	if strings.ContainsRune(s.Raw, '\uFFFD') {
		t.Fatal("raw cut split a rune")
	}
}

func TestReadStreamCaps(t *testing.T) {
	tests := []struct {
		name  string
		in    io.Reader
		lim   StreamLimits
		what  string
		lines int64
	}{
		{"long line", strings.NewReader(strings.Repeat("x", 101) + "\n"), StreamLimits{MaxLine: 100}, "line", 0},
		{"line at the cap", strings.NewReader(strings.Repeat("x", 100) + "\nok\n"), StreamLimits{MaxLine: 100}, "", 2},
		{"long line without newline", strings.NewReader(strings.Repeat("x", 200<<10)), StreamLimits{MaxLine: 100 << 10}, "line", 0},
		{"too many lines", strings.NewReader(strings.Repeat("{}\n", 11)), StreamLimits{MaxLines: 10}, "lines", 11},
		{"exactly the lines", strings.NewReader(strings.Repeat("{}\n", 10)), StreamLimits{MaxLines: 10}, "", 10},
		{"too many bytes", strings.NewReader(strings.Repeat("abcdefghi\n", 20)), StreamLimits{MaxBytes: 150}, "bytes", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ReadStream(tc.in, tc.lim, nil)
			if tc.what == "" {
				if err != nil || s.Lines != tc.lines {
					t.Fatalf("err = %v, lines = %d", err, s.Lines)
				}
				return
			}
			var fe *FloodError
			if !errors.As(err, &fe) || fe.What != tc.what || !errors.Is(err, ErrFlood) {
				t.Fatalf("err = %v, want a %s flood", err, tc.what)
			}
			if tc.lines > 0 && s.Lines != tc.lines {
				t.Fatalf("lines = %d, want %d", s.Lines, tc.lines)
			}
		})
	}
}

// endless is a child that never stops writing.
type endless struct{ line []byte }

func (e endless) Read(p []byte) (int, error) {
	n := 0
	for n+len(e.line) <= len(p) {
		n += copy(p[n:], e.line)
	}
	return n, nil
}

func TestReadStreamStopsAnEndlessChild(t *testing.T) {
	_, err := ReadStream(endless{[]byte("y\n")}, StreamLimits{}, nil)
	var fe *FloodError
	if !errors.As(err, &fe) || fe.What != "lines" || fe.Limit != maxLines {
		t.Fatalf("err = %v", err)
	}
	if fe.Error() != "child output flood: more than 100000 lines" {
		t.Fatalf("message = %q", fe.Error())
	}
}

func TestParseLineKinds(t *testing.T) {
	tests := []struct {
		in   string
		kind int
	}{
		{"", kindBlank}, {"  \r", kindBlank}, {"hello", kindRaw}, {"{not json", kindRaw},
		{`{"type":"tool_call","name":"x"}`, kindTelemetry},
		{`{"type":"result","result":{"status":"partial"}}`, kindResult},
		{`{"type":"result","result":null}`, kindIgnored},
		{`{"type":"result","result":{"summary":"no status"}}`, kindIgnored},
		{`{"type":"result","result":"text"}`, kindIgnored},
		{`{"status":"success","summary":"s"}`, kindLegacyResult},
		{`{"status":7}`, kindRaw},
		{`{"other":1}`, kindIgnored},
		{`{"type":3}`, kindRaw},
	}
	for _, tc := range tests {
		if kind, _, _ := parseLine([]byte(tc.in)); kind != tc.kind {
			t.Errorf("parseLine(%q) = kind %d, want %d", tc.in, kind, tc.kind)
		}
	}
}

// FuzzParseLine: any bytes classify without panicking, and a result comes
// with a status.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"type":"result","result":{"status":"success","artifacts":[{"id":"a"}]}}`))
	f.Add([]byte(`{"status":"error","denials":[{"tool":"t"}]}`))
	f.Add([]byte(`{"type":"event","event":{"schema":"odek.event/v1"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		kind, l, res := parseLine(line)
		switch kind {
		case kindResult, kindLegacyResult:
			if res == nil || res.Status == "" && kind == kindResult {
				t.Fatalf("kind %d without a usable result", kind)
			}
		case kindTelemetry:
			if l == nil || l.Result != nil {
				t.Fatal("telemetry line carries a result")
			}
		}
	})
}

// FuzzReadStream: arbitrary output under small caps never panics, never
// reads past a broken cap, and counts bytes exactly otherwise.
func FuzzReadStream(f *testing.F) {
	f.Add([]byte("a\nb\n{\"type\":\"result\",\"result\":{\"status\":\"success\"}}\n"))
	f.Add(bytes.Repeat([]byte("x"), 300))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := StreamLimits{MaxLine: 64, MaxLines: 8, MaxBytes: 256}
		s, err := ReadStream(bytes.NewReader(data), lim, nil)
		if err != nil {
			if !errors.Is(err, ErrFlood) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if s.Bytes != int64(len(data)) || s.Lines > 8 || len(s.Raw) > maxRawBytes+len(rawTruncatedMarker)+1 {
			t.Fatalf("bytes %d/%d lines %d raw %d", s.Bytes, len(data), s.Lines, len(s.Raw))
		}
	})
}
