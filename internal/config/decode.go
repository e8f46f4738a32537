package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// decoder turns one config file into a layer, walking the file's objects
// along the settings table.
type decoder struct {
	l       *layer
	lookup  func(string) (string, bool) // ${VAR} expansion
	unknown []unknownKey
	warns   []string
}

// decodeFile decodes data, the contents of the config file path. Unknown
// keys and settings odek does not read yet are warnings; a value of the
// wrong type is a *ParseError with its line and column.
func decodeFile(kind layerKind, path string, data []byte, lookup func(string) (string, bool)) (*layer, []string, error) {
	d := &decoder{l: newLayer(kind, path), lookup: lookup}
	d.l.data = data
	if len(bytes.TrimSpace(data)) == 0 {
		return d.l, nil, nil // a freshly touched file
	}
	top, err := members(data)
	if !json.Valid(data) || err != nil {
		if isNull(bytes.TrimSpace(data)) {
			return d.l, nil, nil
		}
		var obj map[string]json.RawMessage
		return nil, nil, newParseError(path, data, json.Unmarshal(data, &obj))
	}
	if err := d.object("", top); err != nil {
		return nil, nil, err
	}
	sort.Slice(d.unknown, func(i, j int) bool {
		return d.unknown[i].prefix+d.unknown[i].name < d.unknown[j].prefix+d.unknown[j].name
	})
	w := make([]string, 0, len(d.unknown)+len(d.warns))
	for _, u := range d.unknown {
		w = append(w, u.warning(path))
	}
	return d.l, append(w, d.warns...), nil
}

// object decodes the members of the section prefix (prefix "" is the top).
func (d *decoder) object(prefix string, obj []member) error {
	for _, m := range obj {
		if isComment(m.key) {
			continue
		}
		key, raw := prefix+m.key, m.raw
		if i, ok := keyIndex()[key]; ok {
			if err := d.setting(i, raw); err != nil {
				return err
			}
			continue
		}
		if !sectionSet()[key] {
			d.unknown = append(d.unknown, unknownKey{prefix, m.key, children()[prefix]})
			continue
		}
		sub, err := d.section(key, raw)
		if err != nil {
			return err
		}
		if err := d.object(key+".", sub); err != nil {
			return err
		}
	}
	return nil
}

// section decodes a section's object; null is an absent section.
func (d *decoder) section(key string, raw json.RawMessage) ([]member, error) {
	if isNull(raw) {
		return nil, nil
	}
	sub, err := members(raw)
	if err != nil {
		return nil, d.typeError(key, reflect.TypeFor[map[string]any](), raw, 0)
	}
	return sub, nil
}

// isComment reports a "//"-prefixed key, the comment convention of the
// templates; it is accepted in every object with fixed fields.
func isComment(key string) bool { return len(key) >= 2 && key[:2] == "//" }

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// setting decodes, expands and validates the value of table[i].
func (d *decoder) setting(i int, raw json.RawMessage) error {
	s := &table[i]
	if isNull(raw) {
		return nil
	}
	v, err := d.value(s, raw)
	if err != nil {
		return err
	}
	if err := validate(d.l.path+": "+s.Key, s, v); err != nil {
		return err
	}
	if s.check != nil {
		if err := s.check(v); err != nil {
			return setupErrorf("%s: %v", d.l.path, err)
		}
	}
	d.l.set(i, v, "")
	return nil
}

// value decodes raw into the Go representation of the setting's kind.
func (d *decoder) value(s *Setting, raw json.RawMessage) (any, error) {
	switch s.Kind {
	case String:
		str, ok := jsonString(raw)
		if !ok {
			return nil, d.typeError(s.Key, reflect.TypeFor[string](), raw, 0)
		}
		return d.expand(str), nil
	case Bool:
		switch string(raw) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, d.typeError(s.Key, reflect.TypeFor[bool](), raw, 0)
	case Int:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, d.typeError(s.Key, reflect.TypeFor[int64](), raw, 0)
		}
		return n, nil
	case Float:
		f, err := strconv.ParseFloat(string(raw), 64)
		if errors.Is(err, strconv.ErrRange) { // 1e400 would be ±Inf: no limit at all
			return nil, d.errorAt(strings.Split(s.Key, "."), raw, 0, fmt.Errorf("%q must be a finite number, got %s", s.Key, raw))
		}
		if err != nil { // raw is valid JSON: ParseFloat reads only its numbers
			return nil, d.typeError(s.Key, reflect.TypeFor[float64](), raw, 0)
		}
		return f, nil
	case Seconds:
		return d.seconds(s, raw)
	case StringList:
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, d.innerError(strings.Split(s.Key, "."), s.Key, raw, err)
		}
		for j := range list {
			list[j] = d.expand(list[j])
		}
		return list, nil
	case Object:
		if s.parse != nil {
			v, warns, err := s.parse(raw)
			if err != nil {
				return nil, d.errorAt(strings.Split(s.Key, "."), raw, 0, err)
			}
			for _, w := range warns {
				d.warns = append(d.warns, d.l.path+": "+w)
			}
			return v, nil
		}
		return d.objectValue(s, raw)
	}
	return raw, nil // Opaque
}

// seconds accepts a JSON integer of seconds or a duration string.
func (d *decoder) seconds(s *Setting, raw json.RawMessage) (any, error) {
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return ParseSeconds(strconv.FormatInt(n, 10))
	}
	if str, ok := jsonString(raw); ok {
		if v, err := ParseSeconds(d.expand(str)); err == nil {
			return v, nil
		}
	}
	return nil, d.typeError(s.Key, durationType, raw, 0)
}

var durationType = reflect.TypeFor[time.Duration]()

// expand applies ${VAR} substitution to a file's string; values given on
// the command line (no lookup) are taken as they are.
func (d *decoder) expand(s string) string {
	if d.lookup == nil {
		return s
	}
	return Expand(s, d.lookup)
}

// jsonString decodes a JSON string, without encoding/json for the common
// case of plain ASCII without escapes.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}
