package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is one Load setup: file contents ("" = absent) and environment.
type fixture struct {
	global, project, secrets string
	env                      map[string]string
	flags                    []string // key=value, given as the setting's flag (else as -c)
}

// overrides builds command-line overrides from key=value pairs.
func overrides(t *testing.T, pairs ...string) Overrides {
	t.Helper()
	var o Overrides
	for _, kv := range pairs {
		key, value, _ := strings.Cut(kv, "=")
		origin := "-c " + key
		if s, ok := Lookup(key); ok && s.Flag != "" {
			origin = "--" + s.Flag
		}
		if err := o.Set(key, value, origin); err != nil {
			t.Fatalf("Set(%q): %v", kv, err)
		}
	}
	return o
}

// load writes the fixture into fresh directories and loads it.
func (fx fixture) load(t *testing.T) (*Config, []string, error) {
	t.Helper()
	home, dir := t.TempDir(), t.TempDir()
	write := func(path, body string) {
		if body != "" {
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(filepath.Join(home, "config.json"), fx.global)
	write(filepath.Join(dir, "odek.json"), fx.project)
	write(filepath.Join(home, "secrets.env"), fx.secrets)
	c, w, err := Load(LoadOptions{Home: home, Dir: dir, LookupEnv: mapLookup(fx.env), Flags: overrides(t, fx.flags...)})
	return c, scrub(w, home, dir), err
}

// mustLoad fails the test on an error.
func (fx fixture) mustLoad(t *testing.T) (*Config, []string) {
	t.Helper()
	c, w, err := fx.load(t)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c, w
}

// scrub replaces the temporary directories in warnings with HOME and DIR so
// tests can state the exact text.
func scrub(w []string, home, dir string) []string {
	if len(w) == 0 {
		return nil
	}
	out := make([]string, len(w))
	for i, s := range w {
		out[i] = strings.NewReplacer(home, "HOME", dir, "DIR").Replace(s)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// scrubErr returns err's message with the test's temp dirs replaced; the
// dirs are recovered from the message shape used by fixture.load.
func scrubErr(t *testing.T, err error) string {
	t.Helper()
	msg := err.Error()
	for _, suffix := range []string{"/config.json", "/odek.json", "/secrets.env"} {
		if i := strings.Index(msg, suffix); i >= 0 {
			start := strings.LastIndex(msg[:i], " ") + 1
			if start == 0 && !strings.HasPrefix(msg, "/") {
				continue
			}
			name := "HOME"
			if suffix == "/odek.json" {
				name = "DIR"
			}
			msg = strings.ReplaceAll(msg, msg[start:i], name)
		}
	}
	return msg
}

// withoutUnsupported drops the "not supported yet" warnings, so that tests
// of a setting's rules keep passing when the setting is wired.
func withoutUnsupported(w []string) []string {
	var out []string
	for _, s := range w {
		if !strings.HasSuffix(s, "is not supported yet") {
			out = append(out, s)
		}
	}
	return out
}
