package artifact

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateWithin: with Within set (a project server's directory) a
// root counts only where it resolves inside that tree, so a project file
// cannot make odek read a file for its server from outside the workspace:
// not with a root outside, nor with a root inside that is a symlink out of
// it, nor by swapping a root for such a symlink after odek has resolved it.
func TestValidateWithin(t *testing.T) {
	base := t.TempDir()
	proj, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(proj, "out"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(home, "id_rsa")
	inside := filepath.Join(proj, "out", "report.txt")
	for _, f := range []string{secret, inside} {
		if err := os.WriteFile(f, []byte("data\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(home, filepath.Join(proj, "link")); err != nil {
		t.Fatal(err)
	}
	ref := func(path string) Ref {
		return Ref{Schema: SchemaArtifactRef, ID: "r1", URI: "file://" + path, MediaType: "text/plain"}
	}
	cases := []struct {
		name   string
		roots  []string
		path   string
		within string
		want   string // "" = accepted
	}{
		{"root outside", []string{home}, secret, proj, "resolve outside the server's project directory"},
		{"root inside is a symlink out", []string{filepath.Join(proj, "link")}, filepath.Join(proj, "link", "id_rsa"), proj, "resolve outside"},
		{"a root outside beside one inside", []string{home, filepath.Join(proj, "out")}, secret, proj, "outside every configured artifact root"},
		{"root inside", []string{filepath.Join(proj, "out")}, inside, proj, ""},
		{"the project itself", []string{proj}, inside, proj, ""},
		{"no within: the operator's root outside", []string{home}, secret, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := validateAll([]Ref{ref(c.path)}, c.roots, c.within)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if re := (*RefError)(nil); err != nil && !errors.As(err, &re) {
				t.Fatalf("error %T is not a *RefError", err)
			}
		})
	}

	// A root resolved inside, then swapped for a symlink out of the
	// project before the file is opened: the open follows no symlink.
	loc, err := locate(ref(filepath.Join(proj, "out", "id_rsa")), filepath.Join(proj, "out", "id_rsa"), []string{filepath.Join(proj, "out")}, proj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(proj, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(proj, "out")); err != nil {
		t.Fatal(err)
	}
	if f, err := loc.open(); err == nil {
		f.Close()
		t.Fatal("the file below a root swapped for a symlink out of the project was opened")
	}
}
