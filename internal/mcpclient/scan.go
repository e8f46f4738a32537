package mcpclient

import (
	"bytes"
	"encoding/json"
)

// scanObject walks the top level of a JSON object and calls visit with each
// member's key (quotes included) and raw value, without decoding or copying
// anything. It is the fast half of classify: a tools/call response can be
// tens of megabytes, almost all of it one string, and encoding/json would
// scan it three times (validate, skip into a RawMessage, copy) before the
// caller decodes it once more. Strings are skipped with IndexByte, so the
// cost is close to a memchr over the line.
//
// The scan is structural, not a validator: it rejects anything that is not
// an object of key/value members, but a value may still be malformed inside.
// Every value odek uses is decoded strictly later (method here, result and
// params by their consumers), so a malformed response fails its call with a
// clear error instead of being silently skipped.
func scanObject(b []byte, visit func(key, value []byte)) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		kEnd := skipString(b, i)
		if kEnd < 0 {
			return false
		}
		key := b[i:kEnd]
		i = skipWS(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		vEnd := skipValue(b, i)
		if vEnd < 0 {
			return false
		}
		visit(key, b[i:vEnd])
		i = skipWS(b, vEnd)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return skipWS(b, i+1) == len(b)
		default:
			return false
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i]
// (which is '"'), or -1 if it does not end.
func skipString(b []byte, i int) int {
	start := i + 1
	for j := start; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		backslashes := 0
		for p := j - 1; p >= start && b[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index just past the value that starts at b[i], or -1.
// Nested objects and arrays are skipped by depth; strings inside them by
// skipString, so brackets in strings do not count.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default: // number, true, false, null
		j := i
		for j < len(b) && !isDelim(b[j]) {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r', '"', '{', '[':
		return true
	}
	return false
}

// keyIs reports whether a raw key (with quotes) names want. Keys with escape
// sequences are unquoted first ("\u0069d" is "id").
func keyIs(raw []byte, want string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return len(raw) == len(want)+2 && string(raw[1:len(raw)-1]) == want
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == want
}
