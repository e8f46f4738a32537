package config

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite docs/CONFIG.md's generated reference from the settings table")

const (
	beginMarker = "<!-- BEGIN GENERATED: go test ./internal/config -run TestConfigDoc -update -->\n"
	endMarker   = "<!-- END GENERATED -->\n"
)

// TestConfigDoc fails when docs/CONFIG.md's reference is not the one the
// settings table generates. Regenerate it with
//
//	go test ./internal/config -run TestConfigDoc -update
func TestConfigDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "CONFIG.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := bytes.Index(doc, []byte(beginMarker)), bytes.Index(doc, []byte(endMarker))
	if begin < 0 || end < begin {
		t.Fatalf("%s lacks the generated-reference markers", path)
	}
	got := string(doc[begin+len(beginMarker) : end])
	want := reference()
	if got == want {
		return
	}
	if *update {
		out := append(append(append([]byte{}, doc[:begin+len(beginMarker)]...), want...), doc[end:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: run go test ./internal/config -run TestConfigDoc -update", path)
}

// reference renders the settings table as Markdown.
func reference() string {
	var b strings.Builder
	b.WriteString("| Key | Type | Default | Environment | Flag | Project file | Description |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	var upstream []string
	for i := range table {
		s := &table[i]
		if s.Upstream {
			upstream = append(upstream, "`"+s.Key+"`")
			continue
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n",
			s.Key, docKind(s), code(s.DefaultText()), docEnv(s), docFlag(s), docTrust(s), docHelp(s))
	}
	fmt.Fprintf(&b, "\nUpstream odek settings outside this odek's scope, accepted with a warning and ignored: %s.\n",
		strings.Join(upstream, ", "))
	return b.String()
}

func docKind(s *Setting) string {
	switch {
	case s.Enum != nil:
		return strings.Join(s.Enum, " \\| ")
	case s.Kind == Seconds:
		return "seconds"
	}
	return s.Kind.String()
}

func docEnv(s *Setting) string {
	switch {
	case s.Env == NoEnv:
		return "—"
	case s.EnvAlt != "":
		return "`" + s.Env + "`, then `" + s.EnvAlt + "`"
	}
	return "`" + s.Env + "`"
}

func docFlag(s *Setting) string {
	if s.Flag == "" || !s.Supported {
		return "—"
	}
	return "`--" + s.Flag + "`"
}

func docTrust(s *Setting) string {
	t := s.Trust.String()
	if s.TrustNote != "" {
		t += ": " + s.TrustNote
	}
	return escape(t)
}

func docHelp(s *Setting) string {
	h := escape(s.Help)
	var bounds []string
	switch {
	case s.Lo != 0:
		bounds = append(bounds, fmt.Sprintf("clamped to %v..%v", s.Lo, s.Hi))
	case s.Hi != 0:
		bounds = append(bounds, fmt.Sprintf("at most %v; more is clamped", s.Hi))
	}
	if s.Min > 0 {
		bounds = append(bounds, fmt.Sprintf("at least %v", s.Min))
	}
	if len(bounds) > 0 {
		h += " (" + strings.Join(bounds, ", ") + ")"
	}
	if !s.Supported {
		h = "**Not supported yet.** " + h
	}
	return h
}

func code(s string) string {
	if s == "" {
		return "—"
	}
	return "`" + s + "`"
}

func escape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// TestSettingsTable checks that every row is complete and consistent.
func TestSettingsTable(t *testing.T) {
	envs, flags := map[string]string{}, map[string]string{}
	for i := range table {
		s := &table[i]
		if s.Key == "" || s.Kind == 0 || s.Trust == 0 || s.Help == "" {
			t.Errorf("%q: key, kind, trust rule and help are required: %+v", s.Key, s)
		}
		if s.Env == "" {
			t.Errorf("%s: no environment variable and no explicit NoEnv", s.Key)
		}
		if s.Env != NoEnv {
			if other, dup := envs[s.Env]; dup {
				t.Errorf("%s and %s share %s", s.Key, other, s.Env)
			}
			envs[s.Env] = s.Key
		}
		if s.Flag != "" {
			if other, dup := flags[s.Flag]; dup {
				t.Errorf("%s and %s share --%s", s.Key, other, s.Flag)
			}
			flags[s.Flag] = s.Key
		}
		if sectionSet()[s.Key] {
			t.Errorf("%s is both a setting and a section", s.Key)
		}
		bound := s.bind != nil || s.custom || s.alias != "" || s.Kind == Opaque
		if !bound {
			t.Errorf("%s binds no Config field", s.Key)
		}
		if s.alias != "" {
			if _, ok := keyIndex()[s.alias]; !ok {
				t.Errorf("%s: alias of unknown %q", s.Key, s.alias)
			}
		}
		if s.Upstream && s.Supported {
			t.Errorf("%s: an upstream setting odek does not implement cannot be supported", s.Key)
		}
		if s.Default != nil && s.bind != nil {
			checkDefaultType(t, s)
		}
		if (s.Trust == ProjectMayTighten) && s.tighten == nil && !s.Union {
			t.Errorf("%s: project may only tighten, but no rule says how", s.Key)
		}
		if s.Trust == ProjectMayLower && s.Kind != Int && s.Kind != Float && s.Kind != Seconds {
			t.Errorf("%s: only numbers can be lowered", s.Key)
		}
	}
}

// checkDefaultType makes sure a default has its Kind's representation, so
// that setDefaults cannot panic.
func checkDefaultType(t *testing.T, s *Setting) {
	t.Helper()
	want := map[Kind]reflect.Type{
		String: reflect.TypeFor[string](), Bool: reflect.TypeFor[bool](), Int: reflect.TypeFor[int64](),
		Float: reflect.TypeFor[float64](), Seconds: reflect.TypeFor[time.Duration](),
		StringList: reflect.TypeFor[[]string](),
	}[s.Kind]
	if got := reflect.TypeOf(s.Default); got != want {
		t.Errorf("%s: default %v is a %v, want %v", s.Key, s.Default, got, want)
	}
}

// TestUnsupportedWarnings: a setting nothing reads yet is reported in
// every layer that sets it, never silently accepted. It picks its setting
// from the table, so wiring one does not break it.
func TestUnsupportedWarnings(t *testing.T) {
	var s *Setting
	var text, jsonText string // the value in the environment and in a file
	for i := range table {
		c := &table[i]
		if c.Supported || c.Upstream || c.Env == NoEnv || c.Trust == GlobalOnly {
			continue
		}
		switch {
		case c.Kind == Bool:
			text, jsonText = "true", "true"
		case c.Kind == String && len(c.Enum) > 0:
			text, jsonText = c.Enum[0], strconv.Quote(c.Enum[0])
		default:
			continue
		}
		s = c
		break
	}
	if s == nil {
		t.Skip("every setting is supported")
	}
	top, _, _ := strings.Cut(s.Key, ".") // a file value {"a": {"b": v}} for "a.b"
	value := jsonText
	if rest, ok := strings.CutPrefix(s.Key, top+"."); ok {
		value = fmt.Sprintf(`{%q: %s}`, rest, jsonText)
	}
	fx := fixture{
		global:  fmt.Sprintf(`{%q: %s, "memory": {"x": 1}}`, top, value),
		project: fmt.Sprintf(`{%q: %s}`, top, value),
		env:     map[string]string{s.Env: text},
	}
	_, w := fx.mustLoad(t)
	want := []string{ // in table order within each layer
		`HOME/config.json: "memory" is an upstream odek setting this odek does not implement; ignoring it`,
		`HOME/config.json: "` + s.Key + `" is not supported yet`,
		`DIR/odek.json: "` + s.Key + `" is not supported yet`,
		s.Env + `: "` + s.Key + `" is not supported yet`,
	}
	sort.Strings(w[:2])
	sort.Strings(want[:2])
	if strings.Join(w, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(w, "\n"), strings.Join(want, "\n"))
	}
}
