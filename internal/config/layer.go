package config

import "fmt"

// layerKind says where a layer's values come from, lowest priority first.
type layerKind int

const (
	globalLayer layerKind = iota + 1
	projectLayer
	envLayer
	flagLayer
)

// layer is the settings one source sets: a config file, the environment or
// the command line. Values are in the Go representation of their Kind and
// already validated; nil means the layer does not set that setting.
type layer struct {
	kind layerKind
	path string // the file, for file layers
	data []byte // the file's bytes, to locate errors
	vals []any  // by table index
	// origin names the variable or flag that set each value (env and
	// flag layers; for files the key itself is named).
	origin []string
}

func newLayer(kind layerKind, path string) *layer {
	return &layer{kind: kind, path: path, vals: make([]any, len(table))}
}

// source names where setting i came from, for Config.Source.
func (l *layer) source(i int) string {
	if l.origin != nil && l.origin[i] != "" {
		return l.origin[i]
	}
	return l.path
}

// set stores a validated value of setting i; origin is "" for files.
func (l *layer) set(i int, v any, origin string) {
	l.vals[i] = v
	if origin != "" {
		if l.origin == nil {
			l.origin = make([]string, len(table))
		}
		l.origin[i] = origin
	}
}

// unsupportedWarning is the warning for a value odek does not read.
func unsupportedWarning(where string, s *Setting) string {
	if s.Upstream {
		return fmt.Sprintf("%s: %q is an upstream odek setting this odek does not implement; ignoring it", where, s.Key)
	}
	return fmt.Sprintf("%s: %q is not supported yet", where, s.Key)
}
