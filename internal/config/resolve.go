package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// resolver lays the layers over the defaults, applying the trust rules to
// the project layer. src records where each setting's value came from.
type resolver struct {
	c          *Config
	globalPath string
	warns      []string
	src        []string    // by table index; "" = the default
	kinds      []layerKind // by table index: the layer that set it; 0 = the default
}

// setDefaults gives every setting its default.
func (c *Config) setDefaults() {
	for i := range table {
		s := &table[i]
		if s.bind != nil && s.Default != nil {
			assign(s.bind(c), s.Default)
		}
	}
}

// apply lays one layer over the config.
func (r *resolver) apply(l *layer) {
	for i, v := range l.vals {
		if v == nil {
			continue
		}
		s := &table[i]
		if s.custom {
			continue
		}
		if l.kind == projectLayer {
			var ok bool
			if v, ok = r.projectValue(l, i, v); !ok {
				continue
			}
		}
		src := l.source(i)
		if s.alias != "" {
			t := keyIndex()[s.alias]
			if l.vals[t] != nil {
				r.warnf("%s: ignoring %q: %q is set too, and wins", src, s.Key, s.alias)
				continue
			}
			s, i = &table[t], t
		}
		if !s.Supported {
			r.warns = append(r.warns, unsupportedWarning(src, s))
		}
		r.set(i, v, src, l.kind)
	}
}

// set assigns v to setting i, from src in a layer of kind. An empty string
// is unset, so a blank "${VAR}" or ODEK_MODEL= never wipes a lower layer's
// value.
func (r *resolver) set(i int, v any, src string, kind layerKind) {
	s := &table[i]
	if s.bind == nil {
		return
	}
	dst := s.bind(r.c)
	switch {
	case v == "":
		return
	case s.ZeroDefault && isZero(v):
		v = s.Default
	case s.Union:
		cur := dst.(*[]string)
		for _, t := range v.([]string) {
			if !slices.Contains(*cur, t) {
				*cur = append(*cur, t)
			}
		}
		r.src[i], r.kinds[i] = src, kind
		return
	case s.Kind == StringList:
		v = slices.Clone(v.([]string))
	}
	if d, ok := v.(Dangerous); ok {
		r.noteClasses(d, src)
	}
	assign(dst, v)
	r.src[i], r.kinds[i] = src, kind
}

// noteClasses records where each class decision of d, about to replace the
// current policy, came from: a class whose decision a lower layer already
// set to the same value keeps that layer's name (a project file repeating
// the global file's decision); every other class d names is src's.
func (r *resolver) noteClasses(d Dangerous, src string) {
	prev, cur := r.c.classSources, r.c.Dangerous.Classes
	next := make(map[string]string, len(d.Classes))
	for class, decision := range d.Classes {
		if p, ok := prev[class]; ok && cur[class] == decision {
			next[class] = p
			continue
		}
		next[class] = src
	}
	r.c.classSources = next
}

// projectValue applies the setting's trust rule to a project value: ok is
// false when the value is ignored.
func (r *resolver) projectValue(l *layer, i int, v any) (any, bool) {
	s := &table[i]
	switch s.Trust {
	case GlobalOnly:
		what := "set it"
		if s.price {
			what = "set prices"
		}
		r.warnf("%s: ignoring %q: a project file cannot %s (only %s can)", l.path, s.Key, what, r.globalPath)
		return nil, false
	case ProjectMayLower:
		return r.lower(l, i, v)
	case ProjectMayTighten:
		if s.tighten == nil {
			return v, true // a Union list: the project appends
		}
		nv, dropped := s.tighten(r.current(i), v, r.globalPath)
		for _, ig := range dropped {
			r.warnf("%s: ignoring %q: %s", l.path, ig.key, ig.why)
		}
		return nv, true
	}
	return v, true
}

// lower lets a project value only lower the current one. 0 re-inherits
// where it means "none" or "the default"; where the current value is 0 =
// none, any project value is lower.
func (r *resolver) lower(l *layer, i int, v any) (any, bool) {
	s := &table[i]
	p, _ := number(v)
	cur := r.current(i)
	c, _ := number(cur)
	switch {
	case p == 0 && (s.ZeroNone || s.ZeroDefault):
		return nil, false
	case (c == 0 && s.ZeroNone) || p <= c:
		return v, true
	}
	origin := "(the default)"
	if r.src[i] != "" {
		origin = "set in " + r.src[i]
	}
	r.warnf("%s: %s %s is above the global limit %s %s; clamped to %s",
		l.path, s.Key, formatValue(v), formatValue(cur), origin, formatValue(cur))
	return nil, false
}

// current is setting i's value so far, in its Kind's representation.
func (r *resolver) current(i int) any {
	s := &table[i]
	switch p := s.bind(r.c).(type) {
	case *int:
		return int64(*p)
	case *int64:
		if s.Kind == Seconds {
			return time.Duration(*p) * time.Second
		}
		return *p
	case *float64:
		return *p
	case *bool:
		return *p
	case *string:
		return *p
	case *time.Duration:
		return *p
	case *Dangerous:
		return *p
	case *[]string:
		return *p
	}
	panic("config: no current value for " + s.Key)
}

// clampAll applies each setting's Lo/Hi bounds to the resolved value.
func (r *resolver) clampAll() {
	for i := range table {
		s := &table[i]
		if s.bind == nil || (s.Lo == 0 && s.Hi == 0) {
			continue
		}
		v := r.current(i)
		n, _ := number(v)
		where := r.src[i]
		if where == "" {
			where = "default"
		}
		switch {
		case s.Hi != 0 && n > s.Hi:
			r.warnf("%s: %s %s exceeds the cap of %v; clamped to %v", where, s.Key, formatValue(v), s.Hi, s.Hi)
			assignNumber(s, s.bind(r.c), s.Hi)
		case s.Lo != 0 && n < s.Lo:
			r.warnf("%s: %s %s is below the minimum of %v; raised to %v", where, s.Key, formatValue(v), s.Lo, s.Lo)
			assignNumber(s, s.bind(r.c), s.Lo)
		}
	}
}

func (r *resolver) warnf(format string, args ...any) {
	r.warns = append(r.warns, fmt.Sprintf(format, args...))
}

// resolveAPIKey names where the key came from (DECISION 10).
func (c *Config) resolveAPIKey(src string) {
	switch {
	case c.APIKey == "":
	case src == "ODEK_API_KEY" || src == "OPENAI_API_KEY":
		c.APIKeySource = src
		if _, fromFile := c.Env[src]; fromFile { // an auth error must point at the file
			c.APIKeySource = src + " from " + filepath.Join(c.Home, "secrets.env")
		}
	default:
		c.APIKeySource = "global config api_key"
	}
}

func isZero(v any) bool {
	n, ok := number(v)
	return ok && n == 0
}
