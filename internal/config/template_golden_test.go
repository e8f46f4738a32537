package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestTemplateGolden pins what `odek init` writes, byte for byte: section
// notes, the example server in the project file only, lists one item a
// line. Regenerate with
//
//	go test ./internal/config -run TestTemplateGolden -update
func TestTemplateGolden(t *testing.T) {
	for name, global := range map[string]bool{"init-global.json": true, "init-project.json": false} {
		path := filepath.Join("testdata", name)
		got := Template(global)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("Template(%v) differs from %s; if the change is meant, rerun with -update and review the diff:\n%s", global, path, got)
		}
	}
}
