package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// decodeStrict decodes one JSON object into v: duplicate keys (at any
// depth), a value of the wrong type and anything after the object are
// errors. Unknown fields are ignored at any depth (DECISION 29: the
// contract's additive rule), so a task file a newer parent wrote still
// reads. It is the decoder for the task file, which a child must read
// exactly as written.
func decodeStrict(data []byte, v any) error {
	if err := checkDuplicateKeys(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return CleanJSONError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON object")
	}
	return nil
}

// checkDuplicateKeys walks the token stream and rejects an object that names
// a key twice: encoding/json would silently keep the last one.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		expect bool // next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return CleanJSONError(err)
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				stack = append(stack, &frame{object: d == '{', keys: map[string]bool{}, expect: d == '{'})
			default:
				stack = stack[:len(stack)-1]
				if n := len(stack); n > 0 && stack[n-1].object {
					stack[n-1].expect = true
				}
			}
			continue
		}
		if top == nil || !top.object {
			continue
		}
		if top.expect {
			key, _ := tok.(string)
			if top.keys[key] {
				return fmt.Errorf("duplicate key %q", key)
			}
			top.keys[key] = true
			top.expect = false
			continue
		}
		top.expect = true // a scalar value ends the member
	}
}

// CleanJSONError restates an encoding/json error as one sentence, without
// the "json: " prefix (for delegate_tasks arguments as for the task file).
func CleanJSONError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, trimJSON(se.Error()))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("field %s: want %s, got %s", field, te.Type, te.Value)
	}
	return errors.New(trimJSON(err.Error()))
}

func trimJSON(s string) string {
	if len(s) > 6 && s[:6] == "json: " {
		return s[6:]
	}
	return s
}
