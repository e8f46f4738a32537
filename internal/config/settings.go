package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Kind is the type of a setting's value.
type Kind int

// The kinds of setting. Each has one Go representation inside Load: String
// string, Bool bool, Int int64, Float float64, Seconds time.Duration,
// StringList []string, Object the setting's Go type, Opaque json.RawMessage.
const (
	String     Kind = iota + 1
	Bool            // JSON true/false; env, flags and -c: strconv.ParseBool
	Int             // JSON integer
	Float           // JSON number
	Seconds         // whole seconds: 90, or a duration string "90s", "10m", "1h30m"
	StringList      // JSON array of strings; env and -c: a comma-separated list
	Object          // a JSON object decoded into a typed Go value
	Opaque          // any JSON, kept undecoded (upstream settings odek does not implement)
)

var kindNames = map[Kind]string{
	String: "string", Bool: "bool", Int: "integer", Float: "number", Seconds: "duration",
	StringList: "string list", Object: "object", Opaque: "any",
}

// String names the kind as CONFIG.md does.
func (k Kind) String() string { return kindNames[k] }

// Trust is what the untrusted project file (./odek.json) may do with a
// setting (docs/CONFIG.md). Environment variables, flags and -c are the
// operator's and may always set it.
type Trust int

// The trust rules.
const (
	// GlobalOnly: a project value is ignored with a warning.
	GlobalOnly Trust = iota + 1
	// ProjectMaySet: the project file may set it like the global file.
	ProjectMaySet
	// ProjectMayLower: a project value may lower the current one (or add one
	// where it is 0 = none); a higher value is clamped with a warning, and 0
	// re-inherits.
	ProjectMayLower
	// ProjectMayTighten: the project file may only make it stricter: append
	// to a denylist, turn a feature off, make a policy stricter.
	ProjectMayTighten
)

var trustNames = map[Trust]string{
	GlobalOnly: "global only", ProjectMaySet: "project may set",
	ProjectMayLower: "project may lower", ProjectMayTighten: "project may only tighten",
}

// String names the rule as CONFIG.md does.
func (t Trust) String() string { return trustNames[t] }

// NoEnv marks a setting that deliberately has no environment variable.
const NoEnv = "none"

// Where a setting appears in the `odek init` templates.
const (
	inGlobalTemplate uint8 = 1 << iota
	inProjectTemplate
)

// Setting is one row of the settings table: everything odek knows about one
// configuration key. The table drives decoding and unknown-key warnings,
// layering, the trust rules, the `odek run` flags, the `odek init`
// templates and docs/CONFIG.md.
type Setting struct {
	// Key is the dotted path in a config file, e.g. "llm.idle_timeout_seconds".
	Key  string
	Kind Kind
	// Default is the value when no layer sets it, in the kind's Go
	// representation; nil is the zero value.
	Default any
	// Env is the environment variable, or NoEnv. EnvAlt is read when Env is
	// unset or empty; for a Bool any non-empty EnvAlt value means true (the
	// NO_COLOR convention).
	Env, EnvAlt string
	// Flag is the `odek run` flag without dashes ("" = none). It exists
	// only while the setting is Supported.
	Flag  string
	Trust Trust
	// TrustNote refines Trust in CONFIG.md where the rule has details.
	TrustNote string
	// Help is one line for --help and CONFIG.md.
	Help string
	// Supported is false until odek reads the setting: a value then draws
	// `"<key>" is not supported yet`. Wiring a setting means flipping this.
	Supported bool
	// Upstream marks a setting of upstream odek outside this odek's scope.
	Upstream bool
	// Enum lists the allowed String values.
	Enum []string
	// Min is the smallest allowed number (a smaller one is an error); Lo
	// and Hi clamp the resolved value with a warning (0 = no bound).
	Min, Lo, Hi float64
	// ZeroDefault: 0 means Default, in every layer.
	ZeroDefault bool
	// ZeroNone: 0 means "no limit"; a project value may then add one.
	ZeroNone bool
	// Union: a StringList every layer adds to instead of replacing.
	Union bool
	// NoOverride: -c cannot set it (api_key: a key in argv leaks into ps).
	NoOverride bool
	// Example is written into the templates instead of Default.
	Example  any
	template uint8

	// bind returns the pointer to the Config field; nil for Opaque and for
	// settings merged by their own code (mcp_servers).
	bind func(*Config) any
	// goType is the decoded Go type of an Object.
	goType reflect.Type
	// convert turns a decoded Object into the Config field's type.
	convert func(any) any
	// tighten applies a project value of a ProjectMayTighten setting to
	// the current one; it returns the new value and the parts it ignored.
	tighten func(cur, project any, globalPath string) (any, []ignored)
	// check validates a decoded Object; the error text is prefixed with
	// where the value came from.
	check func(v any) error
	// extraFields are object fields accepted without being decoded
	// (mcp_servers.<name>.type, the Claude-format transport hint).
	extraFields []string
	// custom settings are merged by their own code after the layers.
	custom bool
	// parse decodes an Object from its raw JSON itself (no ${VAR}
	// expansion: hooks' commands are shell text); its warnings are the
	// file's.
	parse func(raw json.RawMessage) (any, []string, error)
	// price marks the prices, whose project rejection says so.
	price bool
	// alias names the setting this key is another spelling of.
	alias string
}

// Settings returns the settings table, in the order of CONFIG.md. The
// slice is shared: callers must not modify it.
func Settings() []Setting { return table }

// Lookup returns the setting with the exact key.
func Lookup(key string) (*Setting, bool) {
	i, ok := keyIndex()[key]
	if !ok {
		return nil, false
	}
	return &table[i], true
}

// tableIndex maps each key to its position in table, and holds the
// sections: the keys that group settings ("limits", "llm", ...), which are
// objects in a file, not settings. It is built on first use, not by a
// package initializer: odek version, completions and every other process
// that reads no config do not pay for it (issue 23).
type tableIndex struct {
	keys     map[string]int
	sections map[string]bool
}

var indexOnce = sync.OnceValue(func() tableIndex {
	ti := tableIndex{keys: make(map[string]int, len(table)), sections: map[string]bool{}}
	for i := range table {
		s := &table[i]
		ti.keys[s.Key] = i
		for k := s.Key; strings.Contains(k, "."); {
			k = k[:strings.LastIndexByte(k, '.')]
			ti.sections[k] = true
		}
		if s.Kind == Object && s.goType == nil && s.bind != nil {
			s.goType = reflect.TypeOf(s.bind(&Config{})).Elem()
		}
	}
	return ti
})

// keyIndex maps each key to its position in table.
func keyIndex() map[string]int { return indexOnce().keys }

// sectionSet holds the keys that group settings, mapped to true.
func sectionSet() map[string]bool { return indexOnce().sections }

// objectType is the decoded Go type of an Object setting.
func (s *Setting) objectType() reflect.Type {
	indexOnce()
	return s.goType
}

// ignored is a part of a project value the trust rules dropped.
type ignored struct{ key, why string }

// DefaultText prints the default for --help and CONFIG.md; "" when the
// default is empty or absent.
func (s *Setting) DefaultText() string {
	switch d := s.Default.(type) {
	case nil:
		if s.alias != "" {
			return ""
		}
		if s.ZeroNone {
			return "0 (none)"
		}
		if s.Kind == Int || s.Kind == Float || s.Kind == Bool {
			return fmt.Sprint(reflect.Zero(s.goKind()))
		}
		return ""
	case string:
		return d
	}
	return formatValue(s.Default)
}

// goKind is the Go type of a scalar kind's values inside Load.
func (s *Setting) goKind() reflect.Type {
	switch s.Kind {
	case Bool:
		return reflect.TypeFor[bool]()
	case Float:
		return reflect.TypeFor[float64]()
	}
	return reflect.TypeFor[int64]()
}
