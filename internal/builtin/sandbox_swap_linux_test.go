package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/sandbox"
)

// swapAttack is a first shell call that swaps the path $X, which one of the
// policy's rules names and which the command may replace, for a symlink to
// $T; the second call then uses the link as if the rule granted its target.
const (
	swapPlant = `rm -rf "$X" && ln -s "$T" "$X" && echo planted`
	swapUse   = `cat "$X/id_rsa"; cat "$X/id_rsa" > "$WS/leak-swap"; echo pwned >> "$X/authorized_keys";
echo '{"sandbox": {"mode": "off"}}' > "$X/config.json"; cat "$X/secrets.env"`
)

// TestSandboxRuleSwaps: every configuration that puts a rule's path where
// a command can replace it (issue 33's triggers) is attacked with a
// symlink swap between two shell calls. Rules are held by descriptor from
// Prepare on, so the second call gets nothing of the link's target: no
// secret read, nothing appended to ~/.ssh, odek's config untouched. When
// the launcher re-opened each rule by name, every row read ~/.ssh/id_rsa
// and rewrote $ODEK_HOME/config.json.
func TestSandboxRuleSwaps(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	for _, tc := range []struct {
		name  string
		tweak func(p *sandbox.Policy, home, root string)
		swap  string // the path swapped, relative to the jail's root
	}{
		{"protected-in-workspace", func(p *sandbox.Policy, home, _ string) {
			// A project's protected path inside the workspace: the read
			// set then lists the workspace's entries.
			mustMkdir(t, filepath.Join(home, "ws/private"))
			mustMkdir(t, filepath.Join(home, "ws/d"))
			p.Protected = append(p.Protected, filepath.Join(home, "ws/private"))
		}, "home/ws/d"},
		{"writable-ancestor-of-protected", func(p *sandbox.Policy, home, _ string) {
			// ~/.cargo writable, ~/.cargo/credentials protected (absent).
			mustMkdir(t, filepath.Join(home, ".cargo/registry"))
			p.Writable = append(p.Writable, filepath.Join(home, ".cargo"))
		}, "home/.cargo/registry"},
		{"nested-writable", func(p *sandbox.Policy, home, _ string) {
			mustMkdir(t, filepath.Join(home, ".cache/go-build"))
			p.Writable = append(p.Writable, filepath.Join(home, ".cache"), filepath.Join(home, ".cache/go-build"))
		}, "home/.cache/go-build"},
		{"tmpdir-in-workspace", func(p *sandbox.Policy, home, _ string) {
			mustMkdir(t, filepath.Join(home, "ws/tmp"))
			p.TempDir = filepath.Join(home, "ws/tmp")
		}, "home/ws/tmp"},
		{"tmp-writable", func(p *sandbox.Policy, _, root string) {
			mustMkdir(t, filepath.Join(root, "tmpw/odek-tmp-1"))
			p.Writable = append(p.Writable, filepath.Join(root, "tmpw"))
			p.TempDir = filepath.Join(root, "tmpw/odek-tmp-1")
		}, "tmpw/odek-tmp-1"},
	} {
		for _, target := range []string{".ssh", ".odek"} {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				t.Parallel()
				var swap string
				j := newJail(t, true, func(p *sandbox.Policy) {
					home := filepath.Dir(p.Workspace)
					root := filepath.Dir(home)
					tc.tweak(p, home, root)
					swap = filepath.Join(root, tc.swap)
				})
				tgt := filepath.Join(j.home, target)
				vars := `X="` + swap + `"; T="` + tgt + `"; `
				if out := j.run(vars+swapPlant, 30); !strings.Contains(out, "planted") {
					t.Fatalf("the first call could not plant the link:\n%s", out)
				}
				out := j.run(vars+swapUse, 30)
				b := j.breaches("swap", out)
				if data, _ := os.ReadFile(filepath.Join(j.home, ".ssh/authorized_keys")); strings.Contains(string(data), "pwned") {
					b = append(b, "appended to ~/.ssh/authorized_keys")
				}
				if _, err := os.Stat(filepath.Join(j.odekHome, "config.json")); err == nil {
					b = append(b, "wrote $ODEK_HOME/config.json")
				}
				if len(b) > 0 {
					t.Errorf("the swapped rule was followed: %s\noutput:\n%s", strings.Join(b, "; "), out)
				}
			})
		}
	}
}
