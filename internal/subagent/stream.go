package subagent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// StreamLimits are the caps on a child's stdout; zero fields take the
// defaults MaxLineBytes, MaxLines and MaxStreamBytes.
type StreamLimits struct {
	MaxLine  int64
	MaxLines int64
	MaxBytes int64
}

func (l StreamLimits) withDefaults() StreamLimits {
	if l.MaxLine <= 0 {
		l.MaxLine = MaxLineBytes
	}
	if l.MaxLines <= 0 {
		l.MaxLines = MaxLines
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = MaxStreamBytes
	}
	return l
}

// MaxRawBytes caps the unparseable output kept for the model.
const MaxRawBytes = 100 << 10

// RawTruncatedMarker ends raw output that was cut at MaxRawBytes.
const RawTruncatedMarker = "... [result truncated]"

// Stream is what a child's stdout held.
type Stream struct {
	// Result is the framed result line, or else the last untyped JSON object
	// with a status (a legacy result); nil when there was none.
	Result *Result
	// Raw is output that was not JSON, at most MaxRawBytes and then
	// RawTruncatedMarker, for a child that printed no result.
	Raw          string
	Lines, Bytes int64
}

// ReadStream reads r line by line until EOF under the caps, handing every
// telemetry line to onLine (which may be nil) as it arrives. A broken cap
// stops reading at once and returns a *FloodError with what was read so far;
// the caller must then kill the child, whose writes would otherwise block.
func ReadStream(r io.Reader, lim StreamLimits, onLine func(*Line)) (*Stream, error) {
	lim = lim.withDefaults()
	br := bufio.NewReaderSize(r, 64<<10)
	s := &Stream{}
	var raw bytes.Buffer
	defer func() { s.Raw = rawText(&raw) }()
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		s.Bytes += int64(len(chunk))
		if s.Bytes > lim.MaxBytes {
			return s, &FloodError{What: "bytes", Observed: s.Bytes, Limit: lim.MaxBytes}
		}
		if int64(len(line)+len(chunk)) > lim.MaxLine+1 { // +1: the newline
			return s, &FloodError{What: "line", Observed: int64(len(line) + len(chunk)), Limit: lim.MaxLine}
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			s.Lines++
			if s.Lines > lim.MaxLines {
				return s, &FloodError{What: "lines", Observed: s.Lines, Limit: lim.MaxLines}
			}
			s.take(line, &raw, onLine)
			line = line[:0]
		}
		if errors.Is(err, io.EOF) {
			return s, nil
		}
		if err != nil {
			return s, err
		}
	}
}

// take files one complete line.
func (s *Stream) take(line []byte, raw *bytes.Buffer, onLine func(*Line)) {
	kind, l, res := ParseLine(line)
	switch kind {
	case KindResult, KindLegacyResult:
		s.Result = res
	case KindTelemetry:
		if onLine != nil {
			onLine(l)
		}
	case KindRaw:
		if raw.Len() <= MaxRawBytes {
			raw.Write(line)
		}
	}
}

func rawText(b *bytes.Buffer) string {
	if b.Len() == 0 {
		return ""
	}
	data := bytes.TrimRight(b.Bytes(), "\r\n")
	if len(data) <= MaxRawBytes {
		return string(bytes.ToValidUTF8(data, []byte("\uFFFD")))
	}
	cut := MaxRawBytes
	for cut > 0 && data[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return string(bytes.ToValidUTF8(data[:cut], []byte("\uFFFD"))) + "\n" + RawTruncatedMarker
}

// Kinds of stream line ParseLine tells apart.
const (
	KindBlank        = iota // empty or white space
	KindRaw                 // not a JSON object
	KindTelemetry           // a typed line other than the result
	KindResult              // {"type":"result","result":{…}}
	KindLegacyResult        // an untyped object with a status
	KindIgnored             // JSON that is neither (e.g. a result line without a result)
)

// ParseLine classifies one stdout line of a child. It never fails: bytes
// that are not a usable line are KindRaw or KindIgnored.
func ParseLine(line []byte) (kind int, l *Line, res *Result) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return KindBlank, nil, nil
	}
	if line[0] != '{' {
		return KindRaw, nil, nil
	}
	var probe struct {
		Type   *string         `json:"type"`
		Result json.RawMessage `json:"result"`
		Status *string         `json:"status"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return KindRaw, nil, nil
	}
	switch {
	case probe.Type == nil && probe.Status != nil:
		var r Result
		if json.Unmarshal(line, &r) != nil {
			return KindIgnored, nil, nil
		}
		return KindLegacyResult, nil, &r
	case probe.Type == nil:
		return KindIgnored, nil, nil
	case *probe.Type == LineResult:
		var r Result
		if len(probe.Result) == 0 || json.Unmarshal(probe.Result, &r) != nil || r.Status == "" {
			return KindIgnored, nil, nil
		}
		return KindResult, nil, &r
	}
	var tl Line
	if json.Unmarshal(line, &tl) != nil {
		return KindIgnored, nil, nil
	}
	tl.Result = nil
	return KindTelemetry, &tl, nil
}
