package mcpclient

import (
	"bytes"
	"io"
)

// sseReader extracts the data of "message" events from a text/event-stream
// body. Each line and each event's joined data are bounded by max, so a
// server cannot make odek buffer an unbounded event.
type sseReader struct {
	lr  *lineReader
	max int64
}

func newSSEReader(r io.Reader, max int64) *sseReader {
	return &sseReader{lr: newLineReader(r, max), max: max}
}

// next returns the data of the next message event, io.EOF at the end of the
// stream, or *ResponseTooLargeError.
func (s *sseReader) next() ([]byte, error) {
	var data []byte
	var event string
	have := false
	for {
		line, err := s.lr.next()
		if err == io.EOF && have && event == "" {
			return data, nil // a final event without its blank line still counts
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 { // blank line: dispatch
			if have && (event == "" || event == "message") {
				return data, nil
			}
			data, event, have = nil, "", false
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "data":
			if have {
				data = append(data, '\n')
			}
			if int64(len(data)+len(value)) > s.max {
				return nil, &ResponseTooLargeError{Limit: s.max, Observed: int64(len(data) + len(value)), HTTP: true}
			}
			data = append(data, value...)
			have = true
		case "event":
			event = string(value)
		}
	}
}
