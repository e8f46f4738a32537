package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Limits of a handler's settings.
const (
	DefaultTimeout = 60 * time.Second
	MaxTimeout     = time.Hour
	// maxConfigBytes bounds the hooks value of one file (the file itself
	// is bounded by the config loader).
	maxConfigBytes = 1 << 20
)

// Handler types.
const (
	TypeCommand = "command"
	TypeHTTP    = "http"
)

// Config is the "hooks" value of one config file: event → matcher groups,
// in the file's order.
type Config map[Event][]Group

// Group is one matcher and the handlers it runs.
type Group struct {
	// Matcher is as written: "", "*" or absent match everything; a name or
	// a "|" list of names matches exactly; anything else is a regular
	// expression, unanchored (match.go).
	Matcher string
	Hooks   []Handler
	m       *matcher
}

// Handler is one hook.
type Handler struct {
	Type    string // TypeCommand or TypeHTTP
	Command string // bash command line (command)
	// URL, Headers and AllowedEnvVars are an http handler's: header values
	// expand $VAR and ${VAR} only for the names AllowedEnvVars lists.
	URL            string
	Headers        map[string]string
	AllowedEnvVars []string
	Timeout        time.Duration // DefaultTimeout when the file gives none
	// Block is on_error "block" (Claude Code's onFailure "block"): a hook
	// that crashes, times out or answers garbage blocks what it guards
	// instead of letting it through.
	Block bool
}

// Empty reports a config without a single handler.
func (c Config) Empty() bool {
	for _, gs := range c {
		for _, g := range gs {
			if len(g.Hooks) > 0 {
				return false
			}
		}
	}
	return true
}

// Parse reads a "hooks" value in Claude Code's shape. Events odek does not
// fire, handler types it does not run and fields it does not read are
// warnings (the group, handler or field is left out), so a block copied
// from a Claude settings file loads; a value of the wrong type, a matcher
// that is not a valid regular expression or a handler without its command
// or URL is a *ConfigError.
func Parse(raw json.RawMessage) (Config, []string, error) {
	if len(raw) > maxConfigBytes {
		return nil, nil, &ConfigError{Path: "hooks", Msg: fmt.Sprintf("is %d bytes, over the %d-byte limit", len(raw), maxConfigBytes)}
	}
	var top map[string]json.RawMessage
	if err := strictObject(raw, &top); err != nil {
		return nil, nil, &ConfigError{Path: "hooks", Msg: "must be an object of event names: " + err.Error()}
	}
	c := Config{}
	var warns []string
	for _, name := range sortedKeys(top) {
		path := "hooks." + name
		if isComment(name) {
			continue
		}
		e := Event(name)
		if !known(e) {
			warns = append(warns, unknownEvent(path, name))
			continue
		}
		groups, w, err := parseGroups(path, top[name])
		if err != nil {
			return nil, nil, err
		}
		warns = append(warns, w...)
		if len(groups) > 0 {
			c[e] = groups
		}
	}
	return c, warns, nil
}

func unknownEvent(path, name string) string {
	if why, ok := unmapped[name]; ok {
		return fmt.Sprintf("ignoring %q: odek has no %s event (%s)", path, name, why)
	}
	return fmt.Sprintf("ignoring %q: odek knows no hook event %q (see docs/HOOKS.md)", path, name)
}

func parseGroups(path string, raw json.RawMessage) ([]Group, []string, error) {
	var list []json.RawMessage
	if isNull(raw) {
		return nil, nil, nil
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, nil, &ConfigError{Path: path, Msg: "must be an array of matcher groups"}
	}
	var out []Group
	var warns []string
	for i, g := range list {
		group, w, err := parseGroup(fmt.Sprintf("%s[%d]", path, i), g)
		if err != nil {
			return nil, nil, err
		}
		warns = append(warns, w...)
		if len(group.Hooks) > 0 {
			out = append(out, group)
		}
	}
	return out, warns, nil
}

func parseGroup(path string, raw json.RawMessage) (Group, []string, error) {
	var g Group
	var obj map[string]json.RawMessage
	if err := strictObject(raw, &obj); err != nil {
		return g, nil, &ConfigError{Path: path, Msg: "must be an object with \"matcher\" and \"hooks\": " + err.Error()}
	}
	var warns []string
	for _, k := range sortedKeys(obj) {
		switch {
		case k == "matcher":
			if !isNull(obj[k]) && json.Unmarshal(obj[k], &g.Matcher) != nil {
				return g, nil, &ConfigError{Path: path + ".matcher", Msg: "must be a string"}
			}
		case k == "hooks", isComment(k):
		default:
			warns = append(warns, fmt.Sprintf("ignoring %q: odek reads only \"matcher\" and \"hooks\" in a matcher group", path+"."+k))
		}
	}
	m, err := compileMatcher(g.Matcher)
	if err != nil {
		return g, nil, &ConfigError{Path: path + ".matcher", Msg: err.Error()}
	}
	g.m = m
	var list []json.RawMessage
	if raw, ok := obj["hooks"]; !ok || json.Unmarshal(raw, &list) != nil {
		return g, nil, &ConfigError{Path: path + ".hooks", Msg: "must be an array of hooks"}
	}
	for i, h := range list {
		hp := fmt.Sprintf("%s.hooks[%d]", path, i)
		handler, w, keep, err := parseHandler(hp, h)
		if err != nil {
			return g, nil, err
		}
		warns = append(warns, w...)
		if keep {
			g.Hooks = append(g.Hooks, handler)
		}
	}
	return g, warns, nil
}

// ignoredFields are Claude Code handler fields odek accepts without acting
// on them, and why; statusMessage is accepted silently.
var ignoredFields = map[string]string{
	"async":         "odek runs every hook to its end before going on",
	"asyncRewake":   "odek runs every hook to its end before going on",
	"once":          "odek runs a hook every time its event fires",
	"if":            "odek matches on the matcher alone",
	"model":         "odek runs command and http hooks only",
	"prompt":        "odek runs command and http hooks only",
	"statusMessage": "",
}

func parseHandler(path string, raw json.RawMessage) (h Handler, warns []string, keep bool, err error) {
	var obj map[string]json.RawMessage
	if err := strictObject(raw, &obj); err != nil {
		return h, nil, false, &ConfigError{Path: path, Msg: "must be an object: " + err.Error()}
	}
	if err := str(obj, "type", path, &h.Type); err != nil {
		return h, nil, false, err
	}
	switch h.Type {
	case TypeCommand, TypeHTTP:
	case "":
		return h, nil, false, &ConfigError{Path: path + ".type", Msg: `is required: "command" or "http"`}
	default:
		return h, []string{fmt.Sprintf("ignoring %q: odek runs hooks of type \"command\" and \"http\", not %q", path, h.Type)}, false, nil
	}
	h.Timeout = DefaultTimeout
	for _, k := range sortedKeys(obj) {
		w, err := handlerField(path, k, obj[k], &h)
		if err != nil {
			return h, nil, false, err
		}
		warns = append(warns, w...)
	}
	if h.Type == TypeCommand && strings.TrimSpace(h.Command) == "" {
		return h, nil, false, &ConfigError{Path: path + ".command", Msg: "is required for a command hook"}
	}
	if h.Type == TypeHTTP && !strings.HasPrefix(h.URL, "http://") && !strings.HasPrefix(h.URL, "https://") {
		return h, nil, false, &ConfigError{Path: path + ".url", Msg: "is required for an http hook: an http:// or https:// URL"}
	}
	return h, warns, true, nil
}

// handlerField reads one field of a handler into h.
func handlerField(path, k string, raw json.RawMessage, h *Handler) ([]string, error) {
	p := path + "." + k
	switch k {
	case "type":
		return nil, nil
	case "command":
		return nil, str(map[string]json.RawMessage{k: raw}, k, path, &h.Command)
	case "url":
		return nil, str(map[string]json.RawMessage{k: raw}, k, path, &h.URL)
	case "headers":
		if json.Unmarshal(raw, &h.Headers) != nil {
			return nil, &ConfigError{Path: p, Msg: "must be an object of strings"}
		}
	case "allowedEnvVars":
		if json.Unmarshal(raw, &h.AllowedEnvVars) != nil {
			return nil, &ConfigError{Path: p, Msg: "must be an array of variable names"}
		}
	case "timeout":
		return parseTimeout(p, raw, h)
	case "on_error", "onFailure":
		var v string
		if json.Unmarshal(raw, &v) != nil || !slices.Contains([]string{"block", "ignore", "continue"}, v) {
			return nil, &ConfigError{Path: p, Msg: `must be "block" (fail closed) or "ignore" (fail open, the default)`}
		}
		h.Block = h.Block || v == "block"
	case "shell":
		var v string
		if json.Unmarshal(raw, &v) != nil || v != "bash" {
			return nil, &ConfigError{Path: p, Msg: `odek runs command hooks with bash only`}
		}
	default:
		if why, ok := ignoredFields[k]; ok {
			if why == "" {
				return nil, nil
			}
			return []string{fmt.Sprintf("ignoring %q: %s", p, why)}, nil
		}
		if !isComment(k) {
			return []string{fmt.Sprintf("ignoring %q: odek does not read this hook field", p)}, nil
		}
	}
	return nil, nil
}

func parseTimeout(p string, raw json.RawMessage, h *Handler) ([]string, error) {
	var secs float64
	if json.Unmarshal(raw, &secs) != nil || math.IsNaN(secs) || secs < 0 {
		return nil, &ConfigError{Path: p, Msg: "must be a non-negative number of seconds"}
	}
	switch d := time.Duration(secs * float64(time.Second)); {
	case secs == 0:
		h.Timeout = DefaultTimeout
	case secs > MaxTimeout.Seconds():
		h.Timeout = MaxTimeout
		return []string{fmt.Sprintf("%s %g exceeds the cap of %d; clamped to %d", p, secs, int(MaxTimeout.Seconds()), int(MaxTimeout.Seconds()))}, nil
	default:
		h.Timeout = max(d, time.Millisecond)
	}
	return nil, nil
}

// str reads the string field k of obj, if present.
func str(obj map[string]json.RawMessage, k, path string, dst *string) error {
	raw, ok := obj[k]
	if !ok || isNull(raw) {
		return nil
	}
	if json.Unmarshal(raw, dst) != nil {
		return &ConfigError{Path: path + "." + k, Msg: "must be a string"}
	}
	return nil
}

// strictObject decodes a JSON object into m, refusing a key given twice
// (parsers disagree on which one wins).
func strictObject(raw json.RawMessage, m *map[string]json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("not an object")
	}
	if err := json.Unmarshal(raw, m); err != nil {
		return err
	}
	if k := duplicateKey(raw); k != "" {
		return fmt.Errorf("the key %q is given twice", k)
	}
	return nil
}

// duplicateKey finds a key given twice in the top level of a JSON object.
func duplicateKey(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		k, _ := t.(string)
		if seen[k] {
			return k
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func isComment(k string) bool { return strings.HasPrefix(k, "//") }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
