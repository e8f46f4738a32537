package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// newParseError locates a decode error in data as a line and column.
func newParseError(file string, data []byte, err error) *ParseError {
	pos := 0
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, so the offending byte is the last
		// one; a truncated document is reported just after its last token.
		pos = int(se.Offset) - 1
		if strings.HasPrefix(se.Error(), "unexpected end") {
			pos = len(bytes.TrimRight(data, " \t\r\n"))
		}
	case errors.As(err, &te):
		pos = valueStart(data, te.Offset)
	}
	line, col := lineCol(data, pos)
	return &ParseError{File: file, Line: line, Column: col, Err: err}
}

// valueStart finds where the JSON value ending at offset end begins:
// encoding/json reports a type error after the value, but an operator wants
// to be pointed at its start.
func valueStart(data []byte, end int64) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	// A number beyond float64 (1e400) is one of the type errors located
	// here; decoded as a float64 its token would fail and stop the walk.
	dec.UseNumber()
	prev := int64(0)
	for {
		if _, err := dec.Token(); err != nil {
			break
		}
		off := dec.InputOffset()
		if off > end {
			break
		}
		if off == end {
			i := int(prev)
			for i < len(data) && strings.IndexByte(" \t\r\n:,", data[i]) >= 0 {
				i++
			}
			return i
		}
		prev = off
	}
	// No token ends at end (the walk failed first, or end falls between
	// tokens): the byte before it is the last of whatever value ends there.
	return int(end) - 1
}

// lineCol converts a byte position into a 1-based line and a 1-based column
// counted in characters.
func lineCol(data []byte, pos int) (line, col int) {
	pos = max(0, min(pos, len(data)))
	before := data[:pos]
	line = 1 + bytes.Count(before, []byte{'\n'})
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[start:]) + 1
}

// locate returns where the value at the object path segs starts in data
// (the nearest enclosing value found, if the path is incomplete). It walks
// tokens, so it runs only when an error is reported.
func locate(data []byte, segs []string) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	pos := 0
	for _, seg := range segs {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return pos
		}
		found := false
		for dec.More() && !found {
			key, err := dec.Token()
			if err != nil {
				return pos
			}
			if key == seg {
				pos, found = skipSeparator(data, int(dec.InputOffset())), true
			} else if skipValue(dec) != nil {
				return pos
			}
		}
		if !found {
			return pos
		}
	}
	return pos
}

// skipSeparator skips the blanks and the colon between a key and its value.
func skipSeparator(data []byte, i int) int {
	for i < len(data) && strings.IndexByte(" \t\r\n:", data[i]) >= 0 {
		i++
	}
	return i
}

// skipValue consumes one whole value from dec.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
