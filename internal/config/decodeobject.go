package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/mcpclient"
)

// objectValue decodes an Object setting: a struct, or a map of names to
// values (mcp_servers, model_prices, profiles, model_context_windows) whose
// entries are decoded one by one so that errors and unknown fields name
// the entry. Map keys are kept exactly as written.
func (d *decoder) objectValue(s *Setting, raw json.RawMessage) (any, error) {
	segs := strings.Split(s.Key, ".")
	t := s.objectType()
	var v reflect.Value
	if t.Kind() == reflect.Map {
		entries, err := members(raw)
		if err != nil {
			return nil, d.typeError(s.Key, t, raw, 0)
		}
		v = reflect.MakeMapWithSize(t, len(entries))
		for _, e := range entries {
			ev, err := d.decodeInto(t.Elem(), append(segs[:len(segs):len(segs)], e.key), e.raw, s)
			if err != nil {
				return nil, err
			}
			v.SetMapIndex(reflect.ValueOf(e.key), ev)
		}
	} else {
		var err error
		if v, err = d.decodeInto(t, segs, raw, s); err != nil {
			return nil, err
		}
	}
	if d.lookup != nil && bytes.IndexByte(raw, '$') >= 0 {
		expandReflect(v, d.lookup)
	}
	out := v.Interface()
	if s.convert != nil {
		out = s.convert(out)
	}
	return out, nil
}

// decodeInto decodes raw, found at the path segs, into a new value of type
// t. A struct's fields are matched exactly: a key that is not one of its
// JSON names is reported as unknown and never applied, whatever its case.
func (d *decoder) decodeInto(t reflect.Type, segs []string, raw json.RawMessage, s *Setting) (reflect.Value, error) {
	key := strings.Join(segs, ".")
	p := reflect.New(t)
	if t.Kind() != reflect.Struct {
		if err := json.Unmarshal(raw, p.Interface()); err != nil {
			return p, d.innerError(segs, key, raw, err)
		}
		return p.Elem(), nil
	}
	obj, err := members(raw)
	if err != nil {
		return p, d.typeErrorAt(segs, key, t, raw, 0)
	}
	known := jsonFields(t)
	kept := make(map[string]json.RawMessage, len(obj))
	for _, m := range obj {
		if known[m.key] || isComment(m.key) || contains(s.extraFields, m.key) {
			kept[m.key] = m.raw
		} else {
			d.unknown = append(d.unknown, unknownKey{key + ".", m.key, fieldNames(t)})
		}
	}
	if err := json.Unmarshal(raw, p.Interface()); err != nil {
		return p, d.innerError(segs, key, raw, err)
	}
	if len(kept) < len(obj) { // decode again without them: encoding/json folds case
		filtered, _ := json.Marshal(kept) // cannot fail: kept holds valid JSON
		p = reflect.New(t)
		_ = json.Unmarshal(filtered, p.Interface()) // the same values decoded above
	}
	return p.Elem(), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var fieldCache sync.Map // reflect.Type → map[string]bool

// jsonFields returns the JSON names of a struct's fields.
func jsonFields(t reflect.Type) map[string]bool {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = true
	}
	fieldCache.Store(t, m)
	return m
}

// fieldNames lists a struct's JSON names, for did-you-mean hints.
func fieldNames(t reflect.Type) []string {
	return sortedKeys(jsonFields(t))
}

var serverConfigType = reflect.TypeFor[mcpclient.ServerConfig]()

// expandReflect applies ${VAR} expansion to every string inside v, except
// mcp_servers.*.env, whose values reach the child verbatim (docs/CONFIG.md).
// Map keys (server names, model ids) are never expanded.
func expandReflect(v reflect.Value, lookup func(string) (string, bool)) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(Expand(v.String(), lookup))
	case reflect.Pointer:
		if !v.IsNil() {
			expandReflect(v.Elem(), lookup)
		}
	case reflect.Slice:
		for i := range v.Len() {
			expandReflect(v.Index(i), lookup)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type() == serverConfigType && v.Type().Field(i).Name == "Env" {
				continue
			}
			if v.Type().Field(i).IsExported() {
				expandReflect(v.Field(i), lookup)
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			expandReflect(e, lookup)
			v.SetMapIndex(k, e)
		}
	}
}

// typeError is a value of the wrong JSON type at the setting or section key.
func (d *decoder) typeError(key string, t reflect.Type, raw json.RawMessage, rel int64) error {
	return d.typeErrorAt(strings.Split(key, "."), key, t, raw, rel)
}

func (d *decoder) typeErrorAt(segs []string, key string, t reflect.Type, raw json.RawMessage, rel int64) error {
	te := &json.UnmarshalTypeError{Value: jsonValueDesc(raw, t), Type: t, Field: key}
	return d.errorAt(segs, raw, rel, te)
}

// innerError places an encoding/json error from decoding raw (found at
// segs) in the file, naming the field by its full key.
func (d *decoder) innerError(segs []string, key string, raw json.RawMessage, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return d.errorAt(segs, raw, 0, err)
	}
	named := *te
	named.Field = key
	if te.Field != "" {
		named.Field = key + "." + te.Field
	} else if raw[0] == '[' && te.Type.Kind() != reflect.Slice {
		named.Type = reflect.SliceOf(te.Type) // an element of a list
	}
	return d.errorAt(segs, raw, te.Offset, &named)
}

// errorAt locates the value at segs (and the offset rel inside it).
func (d *decoder) errorAt(segs []string, raw json.RawMessage, rel int64, err error) error {
	pos := locate(d.l.data, segs)
	if rel > 0 {
		pos += valueStart(raw, rel)
	}
	line, col := lineCol(d.l.data, pos)
	return &ParseError{File: d.l.path, Line: line, Column: col, Err: err}
}

// jsonValueDesc describes a JSON value the way encoding/json does in its
// type errors ("string", "number 1.5", ...).
func jsonValueDesc(raw json.RawMessage, want reflect.Type) string {
	switch raw[0] {
	case '"':
		if want == durationType {
			return "string " + string(raw)
		}
		return "string"
	case 't', 'f':
		return "bool"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	if k := want.Kind(); k == reflect.Int64 || k == reflect.Int {
		return "number " + string(raw)
	}
	return "number"
}
