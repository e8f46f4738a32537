package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/suggest"
)

// readEnv builds the environment layer from each setting's variable. An
// empty variable counts as unset, because CI systems often export empty
// values; a value that does not parse is a setup error naming the variable.
func readEnv(lookup func(string) (string, bool)) (*layer, error) {
	l := newLayer(envLayer, "")
	for i := range table {
		s := &table[i]
		if s.Env == NoEnv || s.Env == "" {
			continue
		}
		name, text := s.Env, ""
		if v, ok := lookup(name); ok {
			text = v
		}
		if text == "" && s.EnvAlt != "" {
			name = s.EnvAlt
			if v, ok := lookup(name); ok {
				text = v
			}
			if text != "" && s.Kind == Bool {
				text = "true" // NO_COLOR: any non-empty value (https://no-color.org)
			}
		}
		if text == "" {
			continue
		}
		v, err := parseText(s, text)
		if err != nil {
			return nil, setupErrorf("%s=%q: %v", name, text, err)
		}
		if err := validate(name, s, v); err != nil {
			return nil, err
		}
		l.set(i, v, name)
	}
	return l, nil
}

// Overrides are settings given on the command line: flags generated from
// the settings table and -c key=value. They are operator-trusted and beat
// every other layer, limits included (an explicit 0 removes a limit). The
// zero value overrides nothing.
type Overrides struct {
	vals     []override
	mcpFiles []string // --mcp-config files (mcpfile.go)
}

type override struct {
	i      int // table index
	v      any
	origin string // "--max-iter", "-c max_iterations"
}

// Set parses text as the value of the setting key, given as origin (the
// flag, or "-c <key>"), and records it. A StringList value adds to the
// values already given for it; anything else replaces them. The error
// names only what is wrong with the text, for the flag parser to prefix.
func (o *Overrides) Set(key, text, origin string) error {
	i, ok := keyIndex()[key]
	if !ok {
		return unknownSetting(key)
	}
	s := &table[i]
	if s.NoOverride {
		return fmt.Errorf("cannot be set on the command line, where ps would show it; use %s or secrets.env", s.Env)
	}
	v, err := parseText(s, text)
	if err != nil {
		return err
	}
	if s.Kind == StringList {
		for j := range o.vals {
			if o.vals[j].i == i {
				o.vals[j].v = append(o.vals[j].v.([]string), v.([]string)...)
				return nil
			}
		}
	}
	o.vals = append(o.vals, override{i: i, v: v, origin: origin})
	return nil
}

// SetPair records one -c key=value.
func (o *Overrides) SetPair(pair string) error {
	key, value, ok := strings.Cut(pair, "=")
	if !ok || key == "" {
		return errors.New("want key=value, e.g. -c max_iterations=20")
	}
	if err := o.Set(key, value, "-c "+key); err != nil {
		if _, known := keyIndex()[key]; known {
			return fmt.Errorf("%s: %w", key, err)
		}
		return err
	}
	return nil
}

// Strings is the list given on the command line for a StringList setting,
// and where it came from ("--tool", "-c tools.enabled"); nil when none was.
func (o Overrides) Strings(key string) (values []string, origin string) {
	i, ok := keyIndex()[key]
	if !ok || table[i].Kind != StringList {
		return nil, ""
	}
	for _, ov := range o.vals {
		if ov.i == i {
			return slices.Clone(ov.v.([]string)), ov.origin
		}
	}
	return nil, ""
}

// Has reports whether the command line set key.
func (o Overrides) Has(key string) bool {
	i, ok := keyIndex()[key]
	if !ok {
		return false
	}
	for _, ov := range o.vals {
		if ov.i == i {
			return true
		}
	}
	return false
}

// unknownSetting is the error for a key not in the table.
func unknownSetting(key string) error {
	keys := make([]string, len(table))
	for i := range table {
		keys[i] = table[i].Key
	}
	if m := suggest.Nearest(key, keys); m != "" {
		return fmt.Errorf("unknown setting %q; did you mean %q? (docs/CONFIG.md lists them all)", key, m)
	}
	return fmt.Errorf("unknown setting %q (docs/CONFIG.md lists them all)", key)
}

// layer validates the overrides into the flag layer.
func (o Overrides) layer() (*layer, error) {
	l := newLayer(flagLayer, "")
	for _, ov := range o.vals {
		if err := validate(ov.origin, &table[ov.i], ov.v); err != nil {
			return nil, err
		}
		l.set(ov.i, ov.v, ov.origin)
	}
	return l, nil
}
