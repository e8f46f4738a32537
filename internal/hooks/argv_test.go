package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirectArgv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd  string
		want string // "" = bash -c
	}{
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`, "/p/.claude/hooks/guard.sh"},
		{`python3 ${ODEK_PROJECT_DIR}/h.py --mode 'a b'`, "python3|/p/h.py|--mode|a b"},
		{`/usr/bin/true`, "/usr/bin/true"},
		{`true`, ""},
		{`exit 2`, ""},
		{`echo hi`, ""},
		{`./a.sh | tee log`, ""},
		{`./a.sh > log`, ""},
		{`./a.sh; ./b.sh`, ""},
		{`FOO=1 ./a.sh`, ""},
		{`./a.sh $HOME`, ""},
		{`./a.sh *.go`, ""},
		{`~/hooks/a.sh`, ""},
		{`./a.sh {a,b}`, ""},
		{`./a.sh &`, ""},
		{`! ./a.sh`, ""},
		{`./a.sh $(date)`, ""},
		{`if true; then ./a.sh; fi`, ""},
		{`./a.sh "unterminated`, ""},
	} {
		argv, ok := directArgv(tc.cmd, "/p", nil)
		if got := strings.Join(argv, "|"); ok != (tc.want != "") || got != tc.want {
			t.Errorf("directArgv(%s) = %q %v, want %q", tc.cmd, got, ok, tc.want)
		}
	}
	if _, ok := directArgv("./a.sh", "/p", []string{"BASH_ENV=/tmp/x"}); ok {
		t.Error("BASH_ENV set: a direct start would skip it")
	}
}

// A plain command whose direct start fails (a script without a #! line,
// which only a shell runs) still runs, through bash -c.
func TestDirectFallsBackToBash(t *testing.T) {
	t.Parallel()
	g := newRig(t, `{"Stop": [{"hooks": [{"type": "command", "command": "./noshebang.sh"}]}]}`, "")
	if err := os.WriteFile(filepath.Join(g.dir, "noshebang.sh"), []byte("echo 'not yet' >&2; exit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res := g.r.Fire(context.Background(), Input{Event: Stop}); !res.Block || res.Reason != "not yet" {
		t.Fatalf("%+v (%s)", res, g.warned())
	}
}
