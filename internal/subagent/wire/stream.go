package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// StreamLimits are the caps on a child's stdout; zero fields take the
// defaults maxLineBytes, maxLines and maxStreamBytes.
type StreamLimits struct {
	MaxLine  int64
	MaxLines int64
	MaxBytes int64
}

// DefaultStreamLimits are the caps of a local child's stdout.
func DefaultStreamLimits() StreamLimits { return StreamLimits{}.withDefaults() }

func (l StreamLimits) withDefaults() StreamLimits {
	if l.MaxLine <= 0 {
		l.MaxLine = maxLineBytes
	}
	if l.MaxLines <= 0 {
		l.MaxLines = maxLines
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = maxStreamBytes
	}
	return l
}

// maxRawBytes caps the unparseable output kept for the model.
const maxRawBytes = 100 << 10

// rawTruncatedMarker ends raw output that was cut at maxRawBytes.
const rawTruncatedMarker = "... [result truncated]"

// Stream is what a child's stdout held.
type Stream struct {
	// Result is the framed result line, or else the last untyped JSON object
	// with a status (a legacy result); nil when there was none.
	Result *Result
	// Raw is output that was not JSON, at most maxRawBytes and then
	// rawTruncatedMarker, for a child that printed no result.
	Raw          string
	Lines, Bytes int64
}

// ReadStream reads r line by line until EOF under the caps, handing every
// telemetry line to onLine (which may be nil) as it arrives. A broken cap
// stops reading at once and returns a *FloodError with what was read so far;
// the caller must then kill the child, whose writes would otherwise block.
func ReadStream(r io.Reader, lim StreamLimits, onLine func(*Line)) (*Stream, error) {
	s := &Stream{}
	var raw bytes.Buffer
	defer func() { s.Raw = rawText(&raw) }()
	var err error
	s.Lines, s.Bytes, err = EachLine(r, lim, func(line []byte) error {
		s.take(line, &raw, onLine)
		return nil
	})
	return s, err
}

// EachLine reads r line by line until EOF under the caps of a child's
// stdout (zero fields of lim take the defaults) and hands each non-empty
// line, with its newline, to fn; the slice is reused after fn returns. It
// returns the lines and bytes read, and stops at the first broken cap (a
// *FloodError), read error or error of fn. A remote runner reads a pod's
// log with it, so that the log has exactly a local pipe's caps.
func EachLine(r io.Reader, lim StreamLimits, fn func(line []byte) error) (lines, total int64, err error) {
	lim = lim.withDefaults()
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		total += int64(len(chunk))
		if total > lim.MaxBytes {
			return lines, total, &FloodError{What: "bytes", Observed: total, Limit: lim.MaxBytes}
		}
		if int64(len(line)+len(chunk)) > lim.MaxLine+1 { // +1: the newline
			return lines, total, &FloodError{What: "line", Observed: int64(len(line) + len(chunk)), Limit: lim.MaxLine}
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			lines++
			if lines > lim.MaxLines {
				return lines, total, &FloodError{What: "lines", Observed: lines, Limit: lim.MaxLines}
			}
			if ferr := fn(line); ferr != nil {
				return lines, total, ferr
			}
			line = line[:0]
		}
		if errors.Is(err, io.EOF) {
			return lines, total, nil
		}
		if err != nil {
			return lines, total, err
		}
	}
}

// ResultLine is the result a stream line frames ({"type":"result",…}), or
// a legacy untyped result object; nil for any other line.
func ResultLine(line []byte) *Result {
	kind, _, res := parseLine(line)
	if kind == kindResult || kind == kindLegacyResult {
		return res
	}
	return nil
}

// take files one complete line.
func (s *Stream) take(line []byte, raw *bytes.Buffer, onLine func(*Line)) {
	kind, l, res := parseLine(line)
	switch kind {
	case kindResult, kindLegacyResult:
		s.Result = res
	case kindTelemetry:
		if onLine != nil {
			onLine(l)
		}
	case kindRaw:
		if raw.Len() <= maxRawBytes {
			raw.Write(line)
		}
	}
}

func rawText(b *bytes.Buffer) string {
	if b.Len() == 0 {
		return ""
	}
	data := bytes.TrimRight(b.Bytes(), "\r\n")
	if len(data) <= maxRawBytes {
		return string(bytes.ToValidUTF8(data, []byte("\uFFFD")))
	}
	cut := maxRawBytes
	for cut > 0 && data[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return string(bytes.ToValidUTF8(data[:cut], []byte("\uFFFD"))) + "\n" + rawTruncatedMarker
}

// Kinds of stream line parseLine tells apart.
const (
	kindBlank        = iota // empty or white space
	kindRaw                 // not a JSON object
	kindTelemetry           // a typed line other than the result
	kindResult              // {"type":"result","result":{…}}
	kindLegacyResult        // an untyped object with a status
	kindIgnored             // JSON that is neither (e.g. a result line without a result)
)

// parseLine classifies one stdout line of a child. It never fails: bytes
// that are not a usable line are kindRaw or kindIgnored.
func parseLine(line []byte) (kind int, l *Line, res *Result) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return kindBlank, nil, nil
	}
	if line[0] != '{' {
		return kindRaw, nil, nil
	}
	var probe struct {
		Type   *string         `json:"type"`
		Result json.RawMessage `json:"result"`
		Status *string         `json:"status"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return kindRaw, nil, nil
	}
	switch {
	case probe.Type == nil && probe.Status != nil:
		var r Result
		if json.Unmarshal(line, &r) != nil {
			return kindIgnored, nil, nil
		}
		return kindLegacyResult, nil, &r
	case probe.Type == nil:
		return kindIgnored, nil, nil
	case *probe.Type == LineResult:
		var r Result
		if len(probe.Result) == 0 || json.Unmarshal(probe.Result, &r) != nil || r.Status == "" {
			return kindIgnored, nil, nil
		}
		return kindResult, nil, &r
	}
	var tl Line
	if json.Unmarshal(line, &tl) != nil {
		return kindIgnored, nil, nil
	}
	tl.Result = nil
	return kindTelemetry, &tl, nil
}
