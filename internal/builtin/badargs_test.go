package builtin

import (
	"strings"
	"testing"
)

// Every argument a tool refuses is refused with an error that names it.
func TestBadArgumentsAreNamed(t *testing.T) {
	tools, root, _ := setup(t)
	write(t, root, "f.txt", "text\n")
	write(t, root, "bin.dat", "a\x00b")
	for _, tc := range []struct{ tool, args, want string }{
		{"list_dir", `{"depth":-1}`, "depth -1 must be >= 1"},
		{"list_dir", `{"path":"f.txt"}`, "list_dir f.txt: not a directory (use read_file)"},
		{"glob", `{}`, "pattern is required"},
		{"glob", `{"pattern":"[a"}`, `pattern "[a": syntax error in pattern`},
		{"search_files", `{"pattern":"x","glob":"[a"}`, `glob "[a": syntax error in pattern`},
		{"shell", `{"command":"true","description":"t","timeout":-1}`, "timeout -1 must be >= 1 second"},
		{"patch", `{"path":"bin.dat","old":"a","new":"c"}`, "patch bin.dat: binary file; patch edits text files only"},
		{"read_file", `{"path":"f.txt","offset":9}`, "read_file f.txt: offset 9 is past the end of the file"},
		{"read_file", `{"path":"f.txt","bogus":1}`, `invalid arguments: json: unknown field "bogus"`},
	} {
		_, err := call(t, tools[tc.tool], tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: err = %v, want it to contain %q", tc.tool, tc.args, err, tc.want)
		}
	}
}
