package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/odek-run/odek/internal/untrusted"
)

// readBufferSize is the bufio window the line reader scans through. Lines longer
// than this are assembled from chunks, never by growing one buffer past the limit.
const readBufferSize = 64 << 10

// chunkSize is the size of the pieces a long line is collected into. Fixed-size
// chunks mean an over-limit line costs at most limit+chunkSize bytes of
// allocation before it is abandoned, instead of the ~2x of a doubling buffer.
const chunkSize = 1 << 20

// readLimit is the cap on one inbound message: max_response_bytes, lowered
// while discovery runs so that tools/list as a whole stays within its bound
// (a page is never read past what the discovery budget has left). Safe for
// concurrent use: the client lowers it, the reader goroutine reads it.
type readLimit struct {
	base int64
	cur  atomic.Int64
}

func newReadLimit(base int64) *readLimit {
	l := &readLimit{base: base}
	l.cur.Store(base)
	return l
}

// get returns the cap in force.
func (l *readLimit) get() int64 { return l.cur.Load() }

// lower sets the cap to n when that is below the base; n <= 0 restores it.
func (l *readLimit) lower(n int64) {
	if n <= 0 || n > l.base {
		n = l.base
	}
	l.cur.Store(n)
}

// lineReader reads newline-delimited messages with a hard per-line cap.
// It is not safe for concurrent use: the connection has exactly one reader.
type lineReader struct {
	r     *bufio.Reader
	limit *readLimit
}

func newLineReader(r io.Reader, max int64) *lineReader {
	return newLimitedLineReader(r, newReadLimit(max))
}

func newLimitedLineReader(r io.Reader, limit *readLimit) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBufferSize), limit: limit}
}

// next returns the next line without its trailing "\n" (and "\r"), in a slice
// the caller owns. A line longer than max yields a
// *ResponseTooLargeError after reading at most max+1 bytes of it; the reader is
// then unusable because the rest of the line was never consumed.
func (lr *lineReader) next() ([]byte, error) {
	var chunks [][]byte
	var cur []byte
	var total int64
	for {
		part, err := lr.r.ReadSlice('\n')
		total += int64(len(part))
		content := total
		if err == nil {
			content-- // the newline is framing, not payload
		}
		// Read per chunk: the reader may have been waiting for this line
		// since before the cap was lowered.
		if limit := lr.limit.get(); content > limit {
			return nil, &ResponseTooLargeError{Limit: limit, Observed: content}
		}
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return nil, err
		}
		if err == io.EOF && total == 0 {
			return nil, io.EOF
		}
		if err == nil && chunks == nil && cur == nil {
			// Fast path: the whole line sat in the window. Copied, because
			// classify's members alias the line and outlive the next read.
			return bytes.Clone(trimEOL(part)), nil
		}
		chunks, cur = appendChunk(chunks, cur, part)
		if err == bufio.ErrBufferFull {
			continue
		}
		return trimEOL(joinChunks(append(chunks, cur))), nil
	}
}

// appendChunk copies p into fixed-size chunks, starting a new one when cur fills.
func appendChunk(chunks [][]byte, cur, p []byte) ([][]byte, []byte) {
	for len(p) > 0 {
		if cur == nil || len(cur) == cap(cur) {
			if cur != nil {
				chunks = append(chunks, cur)
			}
			cur = make([]byte, 0, chunkSize)
		}
		n := min(len(p), cap(cur)-len(cur))
		cur = append(cur, p[:n]...)
		p = p[n:]
	}
	return chunks, cur
}

func joinChunks(chunks [][]byte) []byte {
	if len(chunks) == 1 {
		return chunks[0]
	}
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	out := make([]byte, 0, n)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// kind is the shape of an inbound JSON-RPC message.
type kind int

const (
	kindInvalid      kind = iota // not JSON, not an object, or no recognisable shape
	kindRequest                  // method + id: the server asks us something
	kindNotification             // method, no id
	kindResponse                 // result or error, with an id
)

// wireError is the JSON-RPC error object.
type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// inbound is a decoded message. Ids stay raw: servers number their own requests
// from 0 and may use strings, so they are echoed byte for byte.
type inbound struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// classify names the shape of one line and picks out the members odek uses.
// It never fails loudly: lines that are not JSON objects are kindInvalid and
// the reader skips them (servers and their libraries sometimes log to stdout).
// The raw members alias line, which must not change afterwards; method is
// decoded strictly here, result/params/error by whoever consumes them.
// Member names are matched exactly, as JSON-RPC defines them.
func classify(line []byte) (kind, *inbound) {
	var m inbound
	var method []byte
	ok := scanObject(line, func(key, value []byte) {
		switch {
		case keyIs(key, "id"):
			m.ID = value
		case keyIs(key, "method"):
			method = value
		case keyIs(key, "params"):
			m.Params = value
		case keyIs(key, "result"):
			m.Result = value
		case keyIs(key, "error"):
			m.Error = value
		}
	})
	if !ok || (method != nil && json.Unmarshal(method, &m.Method) != nil) {
		return kindInvalid, nil
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method != "" && hasID:
		return kindRequest, &m
	case m.Method != "":
		return kindNotification, &m
	case hasID && (len(m.Result) > 0 || len(m.Error) > 0):
		return kindResponse, &m
	}
	return kindInvalid, &m
}

// isError reports whether a response carries an error: the key's presence
// decides, even with code 0 (go-sdk sends that), unless its value is null.
func (m *inbound) isError() bool {
	return len(m.Error) > 0 && string(m.Error) != "null"
}

// rpcError decodes the error object; a malformed one still counts as an error.
func (m *inbound) rpcError() *wireError {
	var e wireError
	if json.Unmarshal(m.Error, &e) != nil {
		e = wireError{Message: "malformed error object"}
	}
	return &e
}

// toRPCError is the error odek reports for e: the message one-lined and
// capped, and -32022's list of supported versions kept for the caller and
// quoted in the text.
func (e *wireError) toRPCError() *RPCError {
	r := &RPCError{Code: e.Code, Message: untrusted.OneLine(e.Message, maxRPCMessage)}
	if e.Code == codeUnsupportedProtocolVersion {
		r.Supported = parseUnsupported(e.Data)
	}
	return r
}

// intID returns our numeric request id, or false for string, fractional or
// negative ids, which can never match a call we made.
func (m *inbound) intID() (int64, bool) {
	n, err := strconv.ParseInt(string(m.ID), 10, 64)
	return n, err == nil && n > 0
}

// outbound is one message we write. Fields are omitted by shape, but jsonrpc
// is always present and an id, once set, is written verbatim (including 0).
type outbound struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

// encode renders one compact message followed by exactly one newline. Never
// batches: go-sdk ends a session on them and TypeScript servers drop them.
func encode(m *outbound) ([]byte, error) {
	m.JSONRPC = "2.0"
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode appends the single "\n" we need
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var errEmptyID = errors.New("empty id")

// requestBytes builds a request with integer id n.
func requestBytes(n int64, method string, params any) ([]byte, error) {
	if n <= 0 {
		return nil, errEmptyID
	}
	return encode(&outbound{ID: json.RawMessage(strconv.FormatInt(n, 10)), Method: method, Params: params})
}
