package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputSchemaPath: the path is relative to the layer that set it, and
// the project file's must stay inside the project directory.
func TestOutputSchemaPath(t *testing.T) {
	const (
		home = "$HOME"
		dir  = "$DIR"
	)
	tests := []struct {
		name string
		fx   fixture
		want string // $HOME and $DIR stand for the fixture's directories
		err  string // a substring of the error; "" = none
	}{
		{"unset", fixture{}, "", ""},
		{"global, relative to its file", fixture{global: `{"output_schema": "s/v.json"}`}, home + "/s/v.json", ""},
		{"global, absolute", fixture{global: `{"output_schema": "/etc/v.json"}`}, "/etc/v.json", ""},
		{"project, relative to its file", fixture{project: `{"output_schema": "ci/v.json"}`}, dir + "/ci/v.json", ""},
		{"project climbing out", fixture{project: `{"output_schema": "../v.json"}`}, "",
			`output_schema "../v.json" in $DIR/odek.json is outside the project directory; a project file may only name a schema inside it`},
		{"project, absolute", fixture{project: `{"output_schema": "/etc/passwd"}`}, "", "is outside the project directory"},
		{"project through a symlink out", fixture{project: `{"output_schema": "out/v.json"}`}, "", `"out/v.json" in $DIR/odek.json is outside`},
		{"project through a symlink inside", fixture{project: `{"output_schema": "in/v.json"}`}, dir + "/in/v.json", ""},
		{"flag beats the project, as given", fixture{project: `{"output_schema": "../v.json"}`, flags: []string{"output_schema=ci/v.json"}}, "ci/v.json", ""},
		{"a flag beats the global file, as given", fixture{global: `{"output_schema": "g.json"}`, flags: []string{"output_schema=c.json"}}, "c.json", ""},
		// A blank project value does not unset the global one, which stays
		// relative to the global file.
		{"blank project value", fixture{global: `{"output_schema": "g.json"}`, project: `{"output_schema": ""}`}, home + "/g.json", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := tt.fx.mustLoad(t)
			outside := t.TempDir()
			mustWrite(t, filepath.Join(outside, "v.json"), "{}")
			mustWrite(t, filepath.Join(c.Dir, "real", "v.json"), "{}")
			mustSymlink(t, outside, filepath.Join(c.Dir, "out"))
			mustSymlink(t, filepath.Join(c.Dir, "real"), filepath.Join(c.Dir, "in"))
			got, err := c.OutputSchemaPath()
			expand := strings.NewReplacer(home, c.Home, dir, c.Dir).Replace
			if tt.err != "" {
				if err == nil || !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), expand(tt.err)) {
					t.Fatalf("err = %v, want ErrSetup containing %q", err, expand(tt.err))
				}
				return
			}
			if err != nil || got != expand(tt.want) {
				t.Fatalf("OutputSchemaPath() = %q, %v; want %q", got, err, expand(tt.want))
			}
		})
	}
}

func mustWrite(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks: %v", err)
	}
}
