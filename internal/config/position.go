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
