package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DurationExample is how errors show a valid duration.
const DurationExample = "90, 90s, 10m or 1h30m"

// ParseSeconds reads a duration in whole seconds: a bare number of seconds
// ("90") or a Go duration ("90s", "10m", "1h30m"). A negative value parses;
// the range check is the caller's.
func ParseSeconds(text string) (time.Duration, error) {
	t := strings.TrimSpace(text)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n > math.MaxInt64/int64(time.Second) || n < math.MinInt64/int64(time.Second) {
			return 0, errors.New("out of range")
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || t == "" {
		return 0, fmt.Errorf("not a duration (use seconds or a duration such as %s)", DurationExample)
	}
	if d%time.Second != 0 {
		return 0, fmt.Errorf("%s is not a whole number of seconds (use e.g. %s)", t, DurationExample)
	}
	return d, nil
}

// parseText reads a setting's value from an environment variable, a flag
// or -c. The error says what is wrong with the text, without naming where
// it came from.
func parseText(s *Setting, text string) (any, error) {
	switch s.Kind {
	case String:
		return text, nil
	case Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return nil, errors.New("not a boolean (use true or false)")
		}
		return b, nil
	case Int:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, errors.New("not an integer")
		}
		return n, nil
	case Float:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, errors.New("not a number")
		}
		return f, nil
	case Seconds:
		return ParseSeconds(text)
	case StringList:
		return commaList(text), nil
	case Object:
		if !s.custom {
			return parseObject(s, text)
		}
	}
	return nil, errors.New("cannot be set on the command line; set it in a config file")
}

// parseObject reads an Object setting written as JSON on the command line.
func parseObject(s *Setting, text string) (any, error) {
	raw := json.RawMessage(strings.TrimSpace(text))
	if !json.Valid(raw) || len(raw) == 0 || raw[0] != '{' {
		return nil, errors.New("want a JSON object")
	}
	d := &decoder{l: newLayer(flagLayer, "value")}
	d.l.data = raw
	v, err := d.value(s, raw)
	var pe *ParseError
	if errors.As(err, &pe) {
		return nil, errors.New(describeJSONError(pe.Err)) // no file to point into
	}
	if err != nil {
		return nil, err
	}
	if s.check != nil {
		if err := s.check(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// commaList splits "a, b,,c" into [a b c].
func commaList(v string) []string {
	out := []string{}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// validate checks a decoded value against the setting's range and enum;
// label names it the way its layer spells it.
func validate(label string, s *Setting, v any) error {
	if s.Kind == StringList && s.check != nil {
		if err := s.check(v); err != nil {
			return setupErrorf("%s: %v", label, err)
		}
	}
	if s.Kind == String && s.Enum != nil {
		str := v.(string)
		for _, e := range s.Enum {
			if str == e {
				return nil
			}
		}
		return setupErrorf("%s: unknown value %q (want %s)", label, str, orList(s.Enum))
	}
	n, ok := number(v)
	if !ok || n >= s.Min {
		return nil
	}
	if s.Min == 0 {
		return setupErrorf("%s must be a non-negative number, got %s", label, formatValue(v))
	}
	return setupErrorf("%s must be at least %v, got %s", label, s.Min, formatValue(v))
}

// number converts a numeric value to float64 for comparisons.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case time.Duration:
		return n.Seconds(), true
	}
	return 0, false
}

// formatValue prints a value in messages: seconds as a plain number, as
// they are written in files.
func formatValue(v any) string {
	if d, ok := v.(time.Duration); ok {
		return strconv.FormatInt(int64(d/time.Second), 10)
	}
	return fmt.Sprint(v)
}

// orList joins ["a", "b", "c"] as "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
