package config

import (
	"encoding/json"
	"errors"
)

// member is one key and value of a JSON object, in file order.
type member struct {
	key string
	raw json.RawMessage
}

var errNotObject = errors.New("not an object")

// members splits a JSON object that encoding/json has already validated
// into its members, without validating it again: decoding a file section by
// section would otherwise re-scan each nested object once per level.
func members(raw json.RawMessage) ([]member, error) {
	i := skipBlank(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, errNotObject
	}
	var out []member
	i = skipBlank(raw, i+1)
	for i < len(raw) && raw[i] != '}' {
		end := skipString(raw, i)
		key, ok := jsonString(raw[i:end])
		if !ok {
			return nil, errNotObject
		}
		start := skipBlank(raw, skipBlank(raw, end)+1) // past the colon
		stop := skipJSONValue(raw, start)
		out = append(out, member{key: key, raw: raw[start:stop]})
		i = skipBlank(raw, stop)
		if i < len(raw) && raw[i] == ',' {
			i = skipBlank(raw, i+1)
		}
	}
	return out, nil
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipJSONValue returns the index after the valid JSON value at b[i].
func skipJSONValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}
