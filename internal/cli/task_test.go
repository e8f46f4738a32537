package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/iostreams"
)

func TestCheckTaskText(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"fix the test\n", "fix the test", ""},
		{"  indented\n\tkept  \r\n\n", "  indented\n\tkept", ""},
		{"\uFEFFwith a byte-order mark", "with a byte-order mark", ""},
		{"café ✓", "café ✓", ""},
		{"", "", "is empty"},
		{" \n\t\r\n", "", "is empty"},
		{"\uFEFF", "", "is empty"},
		{"ab\x00cd", "", "is binary, not text: it has a NUL byte at offset 2"},
		{"\uFEFFab\x00", "", "is binary, not text: it has a NUL byte at offset 5"},
		{"caf\xe9", "", "is not UTF-8 text: invalid byte at offset 3"},
		{"ok \xff\xfe", "", "is not UTF-8 text: invalid byte at offset 3"},
		{"\uFFFD is a real character", "\uFFFD is a real character", ""},
	}
	for _, tc := range tests {
		got, err := checkTaskText([]byte(tc.in))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("checkTaskText(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("checkTaskText(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzCheckTaskText: stdin and task files are untrusted bytes. Whatever
// comes in, the result is valid UTF-8 without NUL, not blank, and a part
// of the input; or there is an error.
func FuzzCheckTaskText(f *testing.F) {
	for _, s := range []string{"task", "", "\x00", "caf\xe9", "\uFEFF\n", " a \n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := checkTaskText(b)
		if err != nil {
			if got != "" {
				t.Fatalf("error %v with text %q", err, got)
			}
			return
		}
		if !utf8.ValidString(got) || strings.ContainsRune(got, 0) || strings.TrimSpace(got) == "" {
			t.Fatalf("accepted %q", got)
		}
		if !bytes.Contains(b, []byte(got)) {
			t.Fatalf("%q is not part of the input %q", got, b)
		}
	})
}

func taskIO(stdin string, tty bool) (*iostreams.IOStreams, *bytes.Buffer) {
	ios, in, _, errOut := iostreams.Test()
	in.WriteString(stdin)
	if tty {
		ios.In, ios.StdinTTY = nil, true
	}
	return ios, errOut
}

func TestReadTask(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		tty   bool
		in    taskInput
		want  string
		err   string
	}{
		{"argument", "", false, taskInput{args: []string{"fix", "it"}}, "fix it", ""},
		{"argument on a terminal", "", true, taskInput{args: []string{"fix"}}, "fix", ""},
		{"piped task", "from stdin\n", false, taskInput{}, "from stdin", ""},
		{"dash", "from stdin", false, taskInput{args: []string{"-"}}, "from stdin", ""},
		{"context", "ctx\n", false, taskInput{args: []string{"review"}}, "review\n\n--- stdin ---\nctx\n--- end stdin ---", ""},
		{"empty context", "\n", false, taskInput{args: []string{"review"}}, "review", ""},
		{"no task on a terminal", "", true, taskInput{}, "", "run: no task; usage: odek run [flags] <task> (or pipe the task in, or --task-file FILE)"},
		{"dash on a terminal", "", true, taskInput{args: []string{"-"}}, "",
			`run: "-" reads the task from stdin, but stdin is a terminal; pipe the task in or give it as an argument`},
		{"blank argument", "", false, taskInput{args: []string{" "}}, "", "run: the task is empty; usage: odek run [flags] <task>"},
		{"two sources", "", false, taskInput{args: []string{"x"}, file: "f"}, "", "run: give the task as an argument or with --task-file, not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, _ := taskIO(tc.stdin, tc.tty)
			tc.in.cmd = "run"
			got, untrusted, err := readTask(context.Background(), ios, tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || events.ErrorClass(err) != errclass.SetupError {
					t.Fatalf("err = %v, want setup error %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("readTask = %q, %v; want %q", got, err, tc.want)
			}
			// Only the command line is the operator's: a task or context
			// read from stdin or a file taints the run (issue 18).
			if want := tc.in.file != "" || len(tc.in.args) == 0 || tc.in.args[0] == "-" || strings.Contains(got, agentrun.StdinOpen); untrusted != want {
				t.Fatalf("untrusted = %v, want %v", untrusted, want)
			}
		})
	}
}

// A pipe that never closes does not hold odek after Ctrl-C.
func TestReadTaskInterrupted(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ios, _, _, _ := iostreams.Test()
	ios.In = r
	done := make(chan error, 1)
	go func() {
		_, _, err := readTask(ctx, ios, taskInput{cmd: "run", args: []string{"review"}})
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOutputArg(t *testing.T) {
	tests := []struct {
		args []string
		want string
		ok   bool
	}{
		{[]string{"run", "--bogus", "--output", "json", "x"}, "json", true},
		{[]string{"run", "--output=stream-json", "--output", "text"}, "text", true},
		{[]string{"run", "--", "--output", "json"}, "", false},
		{[]string{"run", "--output"}, "", false},
		{nil, "", false},
	}
	for _, tc := range tests {
		if got, ok := outputArg(tc.args); got != tc.want || ok != tc.ok {
			t.Errorf("outputArg(%q) = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

// A pipe that stays open beside a task argument gets the notice on stderr,
// with --quiet too: a quiet CI step that hangs on stdin must say why.
func TestReadTaskStdinNotice(t *testing.T) {
	t.Parallel()
	in, inW := io.Pipe()
	errR, errW := io.Pipe()
	ios, _, _, _ := iostreams.Test()
	ios.In, ios.ErrOut = in, errW
	done := make(chan error, 1)
	o := &runOptions{io: ios, args: []string{"review"}}
	o.run.Quiet = true
	go func() { done <- o.readInputs(context.Background(), "run") }()
	line, err := bufio.NewReader(errR).ReadString('\n') // waits for the notice, stdinNoticeAfter
	if err != nil || !strings.Contains(line, "reading stdin until it is closed") {
		t.Fatalf("stderr = %q, %v; want the stdin notice", line, err)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
