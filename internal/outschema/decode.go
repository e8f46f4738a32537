package outschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds nesting; deeper values are refused rather than recursed.
const maxDepth = 256

// decodeValue parses data as exactly one JSON value, numbers kept exact
// (json.Number), refusing invalid UTF-8, duplicate object keys, nesting
// deeper than maxDepth and anything after the value. Errors carry a line
// and column.
func decodeValue(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty")
	}
	d := &decoder{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
	d.dec.UseNumber()
	v, err := d.value(0)
	if err != nil {
		return nil, d.located(err)
	}
	end := d.dec.InputOffset()
	if _, err := d.dec.Token(); err != io.EOF {
		next := end + int64(len(d.data[end:])-len(bytes.TrimLeft(d.data[end:], " \t\r\n")))
		return nil, d.at(next, "more than one JSON value, or text after the value")
	}
	return v, nil
}

type decoder struct {
	dec  *json.Decoder
	data []byte
}

// value reads one value whose first token is next.
func (d *decoder) value(depth int) (any, error) {
	off := d.dec.InputOffset()
	tok, err := d.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth == maxDepth {
			return nil, d.at(off, fmt.Sprintf("nested deeper than %d levels", maxDepth))
		}
		if t == '{' {
			return d.object(depth + 1)
		}
		return d.array(depth + 1)
	default:
		return t, nil // string, json.Number, bool or nil
	}
}

func (d *decoder) object(depth int) (any, error) {
	m := map[string]any{}
	for d.dec.More() {
		off := d.dec.InputOffset()
		tok, err := d.dec.Token()
		if err != nil {
			return nil, err
		}
		k := tok.(string) // the decoder only yields a string here
		if _, dup := m[k]; dup {
			return nil, d.at(off, fmt.Sprintf("duplicate key %q", k))
		}
		if m[k], err = d.value(depth); err != nil {
			return nil, err
		}
	}
	_, err := d.dec.Token() // '}'
	return m, err
}

func (d *decoder) array(depth int) (any, error) {
	a := []any{}
	for d.dec.More() {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
	_, err := d.dec.Token() // ']'
	return a, err
}

// locatedError is an error already placed at a line and column.
type locatedError struct{ msg string }

func (e *locatedError) Error() string { return e.msg }

func (d *decoder) at(off int64, msg string) error {
	line, col := position(d.data, off)
	return &locatedError{fmt.Sprintf("%s at line %d, column %d", msg, line, col)}
}

// located adds a position to the decoder's own errors.
func (d *decoder) located(err error) error {
	var le *locatedError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &le):
		return err
	case errors.As(err, &se):
		return d.at(badByte(d.data, se), se.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return d.at(int64(len(d.data)), "unexpected end of JSON")
	}
	return d.at(d.dec.InputOffset(), err.Error())
}

// position turns a byte offset into a 1-based line and column (in runes).
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// badByte is the offset of the character a syntax error names: the decoder
// reports some errors after the bad byte and some before it.
func badByte(data []byte, se *json.SyntaxError) int64 {
	off := se.Offset
	msg := se.Error()
	if c, ok := strings.CutPrefix(msg, "invalid character '"); ok && len(c) > 1 && c[1] == '\'' &&
		off > 0 && off <= int64(len(data)) && data[off-1] == c[0] {
		return off - 1
	}
	return off
}
