package outschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

const fence = "```"

var errOutsideFence = errors.New("the answer has text outside its fenced block; reply with the JSON value only")

// ParseAnswer extracts the one JSON value of a final answer: the whole text,
// or the body of a single fenced block (```json or a bare ```) with nothing
// but white space around it. It returns the value as written, compacted, and
// decoded for validation (numbers as json.Number).
func ParseAnswer(text string) (json.RawMessage, any, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return nil, nil, errors.New("the answer is empty")
	}
	body := s
	if strings.HasPrefix(s, fence) {
		var err error
		if body, err = unfence(s); err != nil {
			return nil, nil, err
		}
	}
	v, err := decodeValue([]byte(body))
	if err != nil {
		if body == s && strings.Contains(s, fence) {
			return nil, nil, errOutsideFence
		}
		return nil, nil, errors.New("the answer is not one JSON value: " + err.Error())
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(body)); err != nil { // cannot fail after decodeValue
		return nil, nil, errors.New("the answer is not one JSON value: " + err.Error())
	}
	return b.Bytes(), v, nil
}

// unfence returns the body of s, which starts with a fence: everything from
// the line after the opening fence to the closing fence that ends s. The
// closing fence is the last one, so a fence inside a JSON string is content.
func unfence(s string) (string, error) {
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return "", errors.New("the answer's fenced block is not closed")
	}
	info := strings.TrimSpace(s[len(fence):nl])
	if info != "" && !strings.EqualFold(info, "json") {
		return "", errors.New("the answer's fenced block is marked " +
			quoteJSON(untrusted.OneLine(info, 40)) + ", not json")
	}
	rest := s[nl+1:]
	if !strings.HasSuffix(rest, fence) {
		if strings.Contains(rest, fence) {
			return "", errOutsideFence
		}
		return "", errors.New("the answer's fenced block is not closed")
	}
	return rest[:len(rest)-len(fence)], nil
}
