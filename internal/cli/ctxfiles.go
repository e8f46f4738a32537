package cli

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/untrusted"
)

// atRef is an @file reference in a task from the command line: an "@" at
// the start of a word, then the path up to the next white space. Compiled
// on first use, by a task that holds an "@": not every process of odek
// runs a task, and most tasks have none.
var atRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|\s)@(\S+)`) })

// expandAtRefs replaces each @path of a command-line task that names a
// regular file with that file's text, fenced as untrusted data; an @word
// that names no file ("@alice") is left as written. A trailing , . ; : ! ?
// or ) after the path is kept after the fence. expanded says a file was read.
func expandAtRefs(ctx context.Context, ios *iostreams.IOStreams, cmd, task string) (out string, expanded bool, err error) {
	if !strings.Contains(task, "@") {
		return task, false, nil
	}
	out = atRef().ReplaceAllStringFunc(task, func(m string) string {
		if err != nil {
			return m
		}
		lead, ref := m[:len(m)-len(strings.TrimLeft(m, " \t\r\n"))], strings.TrimLeft(m, " \t\r\n")[1:]
		path, tail := ref, ""
		for !isRegular(path) && path != "" && strings.ContainsAny(path[len(path)-1:], ",.;:!?)") {
			path, tail = path[:len(path)-1], path[len(path)-1:]+tail
		}
		if !isRegular(path) {
			return m
		}
		text, rerr := readTextFile(ctx, ios, cmd, "@"+path, path)
		if rerr != nil {
			err = rerr
			return m
		}
		expanded = true
		return lead + untrusted.Wrap("file "+path, text) + tail
	})
	if err != nil {
		return "", false, err
	}
	return out, expanded, nil
}

// withCtxFiles puts each --ctx file's text, fenced as untrusted data, before
// the task, in the order given.
func withCtxFiles(ctx context.Context, ios *iostreams.IOStreams, cmd string, files []string, task string) (string, error) {
	var b strings.Builder
	for _, path := range files {
		text, err := readTextFile(ctx, ios, cmd, "--ctx "+path, path)
		if err != nil {
			return "", err
		}
		b.WriteString(untrusted.Wrap("context file "+path, text) + "\n\n")
	}
	return b.String() + task, nil
}

func isRegular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// readTextFile reads a file given on the command line under the task
// file's limits (at most 1 MiB of UTF-8 text); label names it in errors.
func readTextFile(ctx context.Context, ios *iostreams.IOStreams, cmd, label, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", cmd, label, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", fmt.Errorf("%s: %s is a directory", cmd, label)
	}
	b, err := readLimited(ctx, ios, f, false)
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", cmd, label, err)
	}
	t, err := checkTaskText(b)
	if err != nil {
		return "", fmt.Errorf("%s: the file %s %w", cmd, label, err)
	}
	return t, nil
}
