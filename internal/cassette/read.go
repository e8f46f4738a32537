package cassette

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// readLines parses one stream: JSON objects, one a line, each with the
// fields of T only, numbered seq 1, 2, 3 … in order. check validates one
// entry. Blank lines are not allowed: a hand-edited cassette fails loudly
// at the line that is wrong, never quietly at replay.
func readLines[T any](r io.Reader, name string, seqOf func(*T) int, check func(*T) error) ([]T, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, MaxStreamBytes+1), 64<<10)
	var out []T
	var total int64
	for line := 1; ; line++ {
		b, err := readLine(br)
		if errors.Is(err, io.EOF) && len(b) == 0 {
			return out, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("cassette %s line %d: %w", name, line, err)
		}
		if total += int64(len(b)) + 1; total > MaxStreamBytes {
			return nil, fmt.Errorf("cassette %s: larger than the %d MiB stream cap", name, MaxStreamBytes>>20)
		}
		var e T
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if derr := dec.Decode(&e); derr != nil {
			return nil, fmt.Errorf("cassette %s line %d: %v", name, line, derr)
		}
		if dec.More() {
			return nil, fmt.Errorf("cassette %s line %d: more than one JSON value", name, line)
		}
		if got := seqOf(&e); got != len(out)+1 {
			return nil, fmt.Errorf("cassette %s line %d: seq %d, want %d", name, line, got, len(out)+1)
		}
		if cerr := check(&e); cerr != nil {
			return nil, fmt.Errorf("cassette %s line %d: %v", name, line, cerr)
		}
		out = append(out, e)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
	}
}

// readLine returns one line without its "\n", refusing one over MaxLineBytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineBytes+1 {
			return nil, fmt.Errorf("line longer than the %d MiB cap", MaxLineBytes>>20)
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil {
			return buf[:len(buf)-1], nil
		}
		return buf, err
	}
}

// ReadLLM parses an llm stream.
func ReadLLM(r io.Reader, name string) ([]LLMEntry, error) {
	return readLines(r, name, func(e *LLMEntry) int { return e.Seq }, checkLLM)
}

func checkLLM(e *LLMEntry) error {
	if !isObject(e.Request) {
		return errors.New("request: want a JSON object")
	}
	r := e.Response
	set := 0
	for _, b := range []bool{r.Body != nil, r.Text != nil, r.Events != nil, r.Error != ""} {
		if b {
			set++
		}
	}
	if set != 1 {
		return errors.New("response: want exactly one of body, text, events, error")
	}
	if r.Error == "" && (r.Status < 100 || r.Status > 599) {
		return fmt.Errorf("response: status %d out of range 100-599", r.Status)
	}
	if r.Body != nil && !json.Valid(r.Body) {
		return errors.New("response: body is not JSON")
	}
	return nil
}

// ReadMCP parses an mcp stream.
func ReadMCP(r io.Reader, name string) ([]MCPEntry, error) {
	return readLines(r, name, func(e *MCPEntry) int { return e.Seq }, func(e *MCPEntry) error {
		if e.Dir != DirSend && e.Dir != DirRecv {
			return fmt.Errorf("dir %q: want %q or %q", e.Dir, DirSend, DirRecv)
		}
		if !isObject(e.Msg) {
			return errors.New("msg: want a JSON object")
		}
		return nil
	})
}

// ReadTool parses a tool stream.
func ReadTool(r io.Reader, name string) ([]ToolEntry, error) {
	return readLines(r, name, func(e *ToolEntry) int { return e.Seq }, func(e *ToolEntry) error {
		if e.Tool == "" {
			return errors.New("tool: empty")
		}
		if !json.Valid(e.Args) {
			return errors.New("args: not JSON")
		}
		return nil
	})
}

// ReadMeta parses cassette.json.
func ReadMeta(b []byte) (Meta, error) {
	var m Meta
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("cassette %s: %v", MetaFile, err)
	}
	if m.Format != Format {
		return m, fmt.Errorf("cassette %s: format %q, want %q", MetaFile, m.Format, Format)
	}
	for name := range m.Roots {
		if name != "workdir" && name != "odek_home" && name != "home" {
			return m, fmt.Errorf("cassette %s: root %q: want workdir, odek_home or home", MetaFile, name)
		}
	}
	return m, nil
}

func isObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}
