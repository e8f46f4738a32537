package hooks

import (
	"strings"
	"testing"
)

func TestSpecWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cmd, want string }{
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`, "/p/.claude/hooks/guard.sh"},
		{`python3 ${ODEK_PROJECT_DIR}/hooks/check.py --mode=strict`, "python3 /p/hooks/check.py --mode=strict"},
		{`bash ./hooks/a.sh && node 'hooks/b.js' | tee "$HOME/x"`, "bash ./hooks/a.sh node hooks/b.js tee"},
		{`./run.sh $(cat list)`, "./run.sh cat list"},
		{`if [ -f x`, "if [ -f x"}, // does not parse: split at blanks
	} {
		s := Spec{Dir: "/p", Handler: Handler{Type: TypeCommand, Command: tc.cmd}}
		if got := strings.Join(s.Words(), " "); got != tc.want {
			t.Errorf("Words(%s) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
	if w := (Spec{Handler: Handler{Type: TypeHTTP, URL: "http://x"}}).Words(); w != nil {
		t.Errorf("http words %q", w)
	}
	c := mustParse(t, `{"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]}],
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "c"}]}]}`)
	var names []string
	for _, s := range c.Specs("/p") {
		names = append(names, s.Name()+"="+s.Handler.Command)
	}
	if strings.Join(names, " ") != `PreToolUse "Bash"=c Stop "*"=a Stop "*"=b` {
		t.Errorf("specs = %q", names)
	}
	kept := c.Keep("/p", func(s Spec) bool { return s.Handler.Command != "a" && s.Handler.Command != "c" })
	if _, ok := kept[PreToolUse]; ok || len(kept[Stop]) != 1 || len(kept[Stop][0].Hooks) != 1 || kept[Stop][0].Hooks[0].Command != "b" {
		t.Errorf("kept = %+v", kept)
	}
}
