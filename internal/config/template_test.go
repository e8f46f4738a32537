package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTemplateLoadsCleanly(t *testing.T) {
	c, w := fixture{global: string(Template(true)), project: string(Template(false))}.mustLoad(t)
	if len(w) != 0 {
		t.Errorf("template warnings: %q", w)
	}
	if c.Model != DefaultModel || c.MaxIterations != 90 || len(c.Files) != 2 {
		t.Errorf("template config: %+v", c)
	}
}

func TestWriteTemplate(t *testing.T) {
	root := t.TempDir()
	global := filepath.Join(root, "home", ".odek", "config.json")
	if err := WriteTemplate(global, true, false); err != nil {
		t.Fatal(err)
	}
	checkMode(t, global, 0o600)
	checkMode(t, filepath.Dir(global), 0o700|os.ModeDir)

	// Refuses to overwrite; --force overwrites and sets the mode: 0644 for
	// the project file, which may hold no secrets.
	project := filepath.Join(root, "odek.json")
	if err := os.WriteFile(project, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := WriteTemplate(project, false, false)
	if want := "init: " + project + " already exists (use --force to overwrite it)"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	if err := WriteTemplate(project, false, true); err != nil {
		t.Fatal(err)
	}
	checkMode(t, project, 0o644)
	if err := os.Chmod(global, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := WriteTemplate(global, true, true); err != nil {
		t.Fatal(err)
	}
	checkMode(t, global, 0o600)
	if got, _ := os.ReadFile(project); string(got) != string(Template(false)) {
		t.Errorf("content = %q", got)
	}

	// Never through a symlink, even with --force.
	target := filepath.Join(root, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		err := WriteTemplate(link, false, force)
		if err == nil || !strings.Contains(err.Error(), "is a symlink; refusing to write through it") {
			t.Errorf("force=%v: err = %v", force, err)
		}
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("symlink target changed: %q", got)
	}
	// A dangling symlink is refused too (O_CREAT would follow it).
	dangling := filepath.Join(root, "dangling.json")
	if err := os.Symlink(filepath.Join(root, "created"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteTemplate(dangling, false, false); err == nil {
		t.Error("dangling symlink accepted")
	}
	if _, err := os.Lstat(filepath.Join(root, "created")); err == nil {
		t.Error("write followed a dangling symlink")
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (os.ModePerm | os.ModeDir); got != want {
		t.Errorf("%s mode = %v, want %v", path, got, want)
	}
}

// TestProjectTemplateRaisesNoTrust: odek init (--local) writes only
// settings a project file may carry, so writing one in a repository
// never hands a clone an operator-only key; loaded as a project file, the
// template raises nothing (TestTemplateLoadsCleanly: no key ignored).
func TestProjectTemplateRaisesNoTrust(t *testing.T) {
	t.Parallel()
	for i := range table {
		if s := &table[i]; s.template&inProjectTemplate != 0 && s.Trust == GlobalOnly {
			t.Errorf("%s is operator-only but in the project template", s.Key)
		}
	}
	for _, key := range []string{`"base_url"`, `"api_key"`, `"system"`, `"dangerous"`, `"auto_approve"`, `"input_cost_per_million_usd"`} {
		if strings.Contains(string(Template(false)), key) {
			t.Errorf("the project template names %s", key)
		}
	}
}
