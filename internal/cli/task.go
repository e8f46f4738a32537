package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
)

// maxTaskBytes caps a task read from stdin or --task-file, and the context
// piped in beside a task argument: larger inputs belong in a file a tool
// reads, not in every request.
const maxTaskBytes = 1 << 20

// stdinNoticeAfter is how long reading the context on stdin may take before
// odek says on stderr what it is waiting for (a parent that spawned it with
// a pipe and never closes it would otherwise see a silent hang). --quiet
// does not silence it: a quiet CI step that hangs on stdin needs it most.
const stdinNoticeAfter = 3 * time.Second

// taskInput is where odek run may find its task.
type taskInput struct {
	cmd  string   // "run" or "continue", for messages
	args []string // the arguments; ["-"] reads the task from stdin
	file string   // --task-file ("-" is stdin)
	ctx  []string // --ctx files, put before the task
}

// readTask returns the task: the arguments, the --task-file, or stdin (with
// "-", or when no argument is given and stdin is not a terminal). Stdin that
// is not a terminal beside a task argument or file is appended as context
// between delimiters. untrusted says the task holds text that did not come
// from the command line (a file, stdin: anyone could have written it), which
// taints the run like a tool result (docs/SUBAGENTS.md). Every error is a setup
// error (exit 3).
func readTask(ctx context.Context, ios *iostreams.IOStreams, in taskInput) (task string, untrusted bool, err error) {
	task, fromStdin, err := mainTask(ctx, ios, in)
	if err == nil && !fromStdin && in.file == "" {
		var expanded bool
		task, expanded, err = expandAtRefs(ctx, ios, in.cmd, task)
		untrusted = expanded
	}
	if err == nil && len(in.ctx) > 0 {
		task, err = withCtxFiles(ctx, ios, in.cmd, in.ctx, task)
		untrusted = true
	}
	if err != nil {
		return "", false, errclass.Wrap(errclass.SetupError, err)
	}
	untrusted = untrusted || fromStdin || in.file != ""
	if fromStdin || ios.StdinTTY || ios.In == nil {
		return task, untrusted, nil
	}
	extra, err := readLimited(ctx, ios, ios.In, true)
	if err != nil {
		return "", false, errclass.Wrap(errclass.SetupError, fmt.Errorf("%s: reading the context on stdin: %w", in.cmd, err))
	}
	text, err := checkTaskText(extra)
	if errors.Is(err, errEmptyText) {
		return task, untrusted, nil // an empty pipe (or </dev/null) adds nothing
	}
	if err != nil {
		return "", false, errclass.Wrap(errclass.SetupError, fmt.Errorf("%s: the context on stdin %w", in.cmd, err))
	}
	return task + "\n\n" + agentrun.StdinOpen + "\n" + text + "\n" + agentrun.StdinClose, true, nil
}

// mainTask reads the task itself; fromStdin says stdin was used up for it.
func mainTask(ctx context.Context, ios *iostreams.IOStreams, in taskInput) (task string, fromStdin bool, err error) {
	dash := len(in.args) == 1 && in.args[0] == "-"
	switch {
	case in.file != "" && len(in.args) > 0:
		return "", false, fmt.Errorf("%s: give the task as an argument or with --task-file, not both", in.cmd)
	case in.file == "-" || dash:
		t, err := stdinTask(ctx, ios, in.cmd)
		return t, true, err
	case in.file != "":
		t, err := fileTask(ctx, ios, in.cmd, in.file)
		return t, false, err
	case len(in.args) > 0:
		t := strings.TrimSpace(strings.Join(in.args, " "))
		if t == "" {
			return "", false, fmt.Errorf("%s: the task is empty; usage: %s", in.cmd, usageLine(in.cmd))
		}
		return t, false, nil
	case ios.StdinTTY || ios.In == nil:
		return "", false, fmt.Errorf("%s: no task; usage: %s (or pipe the task in, or --task-file FILE)", in.cmd, usageLine(in.cmd))
	}
	t, err := stdinTask(ctx, ios, in.cmd)
	if errors.Is(err, errEmptyText) {
		err = fmt.Errorf("%s: no task; usage: %s (stdin, read when no task is given, was empty)", in.cmd, usageLine(in.cmd))
	}
	return t, true, err
}

// usageLine is the command's usage, for messages.
func usageLine(cmd string) string {
	if cmd == "continue" {
		return "odek continue [--id <id>] [flags] <task>"
	}
	return "odek run [flags] <task>"
}

func stdinTask(ctx context.Context, ios *iostreams.IOStreams, cmd string) (string, error) {
	if ios.StdinTTY || ios.In == nil {
		return "", fmt.Errorf(`%s: "-" reads the task from stdin, but stdin is a terminal; pipe the task in or give it as an argument`, cmd)
	}
	b, err := readLimited(ctx, ios, ios.In, false)
	if err != nil {
		return "", fmt.Errorf("%s: reading the task on stdin: %w", cmd, err)
	}
	t, err := checkTaskText(b)
	if err != nil {
		return "", fmt.Errorf("%s: the task on stdin %w", cmd, err) // wraps errEmptyText
	}
	return strings.TrimSpace(t), nil
}

func fileTask(ctx context.Context, ios *iostreams.IOStreams, cmd, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s: --task-file: %w", cmd, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", fmt.Errorf("%s: --task-file %s is a directory", cmd, path)
	}
	b, err := readLimited(ctx, ios, f, false)
	if err != nil {
		return "", fmt.Errorf("%s: --task-file %s: %w", cmd, path, err)
	}
	t, err := checkTaskText(b)
	if err != nil {
		return "", fmt.Errorf("%s: the task in --task-file %s %w", cmd, path, err)
	}
	return strings.TrimSpace(t), nil
}

// errTooLarge is an input over maxTaskBytes.
var errTooLarge = fmt.Errorf("it is over the %d MiB limit; put large inputs in a file the tools can read", maxTaskBytes>>20)

// readLimited reads r to EOF, at most maxTaskBytes, giving up when ctx ends
// (Ctrl-C while a pipe stays open). With notice, a read that takes long is
// explained on stderr.
func readLimited(ctx context.Context, ios *iostreams.IOStreams, r io.Reader, notice bool) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxTaskBytes+1))
		done <- result{b, err}
	}()
	var tick <-chan time.Time
	if notice {
		t := time.NewTimer(stdinNoticeAfter)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case res := <-done:
			if res.err != nil {
				return nil, res.err
			}
			if len(res.b) > maxTaskBytes {
				return nil, errTooLarge
			}
			return res.b, nil
		case <-tick:
			fmt.Fprintln(ios.ErrOut, "odek: reading stdin until it is closed, to add it to the task as context (run odek with </dev/null to skip it)")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// errEmptyText is text with nothing but white space.
var errEmptyText = errors.New("is empty")

// checkTaskText accepts UTF-8 text without NUL bytes (a leading byte-order
// mark is dropped) and says what is wrong with anything else. Its errors
// complete a sentence that names the input: "the task on stdin is empty".
func checkTaskText(b []byte) (string, error) {
	s := strings.TrimPrefix(string(b), "\uFEFF")
	if i := strings.IndexByte(s, 0); i >= 0 {
		return "", fmt.Errorf("is binary, not text: it has a NUL byte at offset %d", i+len(b)-len(s))
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("is not UTF-8 text: invalid byte at offset %d", invalidAt(s)+len(b)-len(s))
	}
	s = strings.TrimRight(s, " \t\r\n")
	if strings.TrimSpace(s) == "" {
		return "", errEmptyText
	}
	return s, nil
}

// invalidAt is the offset of the first byte of s that is not valid UTF-8.
func invalidAt(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}
