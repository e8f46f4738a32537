package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/odek-run/odek/internal/risk"
)

// MaxWriteBytes caps what write_file writes and what patch edits.
const MaxWriteBytes = 10 << 20

type writeFile struct{ ws *workspace }

func (t *writeFile) Name() string { return "write_file" }

func (t *writeFile) Description() string {
	return fmt.Sprintf("Write a whole file: `content` replaces it, or creates it together with any missing parent "+
		"directories. The write is atomic (a reader sees the old file or the new one, never half). An existing "+
		"file keeps its permissions; a new one gets 0644. At most %d MiB. To change part of a file, use patch. "+
		"Writing outside the working directory needs the operator's approval.", MaxWriteBytes>>20)
}

func (t *writeFile) Schema() json.RawMessage {
	return schema(`"path":{"type":"string","description":"file path, relative to the working directory"},`+
		`"content":{"type":"string","description":"the file's complete new content"}`, "path", "content")
}

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (t *writeFile) parse(args json.RawMessage) (writeArgs, error) {
	var a writeArgs
	if err := decode(args, &a); err != nil {
		return a, err
	}
	switch {
	case a.Path == "":
		return a, ErrPathRequired
	case a.Content == nil:
		return a, errors.New("content is required (use \"\" for an empty file)")
	case len(*a.Content) > MaxWriteBytes:
		return a, &TooLargeError{What: "content", Size: int64(len(*a.Content)), Max: MaxWriteBytes}
	}
	return a, nil
}

func (t *writeFile) ArgsSummary(args json.RawMessage) map[string]any {
	return t.ws.pathSummary(risk.Write, args)
}

func (t *writeFile) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	a, err := t.parse(args)
	if err != nil {
		return risk.Assessment{}, err
	}
	return t.ws.assess(newPathCall(t.Name(), risk.Write, a.Path))
}

func (t *writeFile) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := t.parse(args)
	if err != nil {
		return "", err
	}
	c := newPathCall(t.Name(), risk.Write, a.Path)
	path, err := t.ws.recheck(ctx, c)
	if err != nil {
		return "", err
	}
	created, err := t.ws.writeAtomic(path, []byte(*a.Content))
	if err != nil {
		return "", t.ws.refused(ctx, c, fmt.Errorf("write_file %s: %w", a.Path, err))
	}
	verb := "replaced"
	if created {
		verb = "created"
	}
	return fmt.Sprintf("%s %s (%d bytes, %d lines)", verb, a.Path, len(*a.Content), lineCount(*a.Content)), nil
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

type patchTool struct{ ws *workspace }

func (t *patchTool) Name() string { return "patch" }

func (t *patchTool) Description() string {
	return "Edit a file by exact replacement: `old` must occur exactly once in the file (byte for byte, " +
		"whitespace and indentation included) and is replaced by `new`. If `old` is missing, or occurs more " +
		"than once, nothing changes and the error says how many times it matched: add surrounding lines to " +
		"make it unique. The write is atomic and keeps the file's permissions. For a new file, use write_file."
}

func (t *patchTool) Schema() json.RawMessage {
	return schema(`"path":{"type":"string","description":"file path, relative to the working directory"},`+
		`"old":{"type":"string","description":"the exact text to replace; must occur exactly once"},`+
		`"new":{"type":"string","description":"the replacement text"}`, "path", "old", "new")
}

type patchArgs struct {
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

func (t *patchTool) parse(args json.RawMessage) (patchArgs, error) {
	var a patchArgs
	if err := decode(args, &a); err != nil {
		return a, err
	}
	switch {
	case a.Path == "":
		return a, ErrPathRequired
	case a.Old == "":
		return a, ErrOldEmpty
	}
	return a, nil
}

func (t *patchTool) ArgsSummary(args json.RawMessage) map[string]any {
	return t.ws.pathSummary(risk.Write, args)
}

func (t *patchTool) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	a, err := t.parse(args)
	if err != nil {
		return risk.Assessment{}, err
	}
	return t.ws.assess(newPathCall(t.Name(), risk.Write, a.Path))
}

func (t *patchTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := t.parse(args)
	if err != nil {
		return "", err
	}
	c := newPathCall(t.Name(), risk.Write, a.Path)
	path, err := t.ws.recheck(ctx, c)
	if err != nil {
		return "", err
	}
	data, err := t.ws.readSmall(path)
	if err != nil {
		return "", t.ws.refused(ctx, c, fmt.Errorf("patch %s: %w", a.Path, err))
	}
	old := []byte(a.Old)
	switch n := bytes.Count(data, old); {
	case n == 0:
		return "", fmt.Errorf("patch %s: old text not found (0 matches)%s; nothing changed", a.Path, nearMiss(data, a.Old))
	case n > 1:
		return "", fmt.Errorf("patch %s: old text matches %d times; include more surrounding lines so it matches exactly once; nothing changed", a.Path, n)
	}
	at := bytes.Index(data, old)
	out := bytes.Replace(data, old, []byte(a.New), 1)
	if len(out) > MaxWriteBytes {
		return "", &TooLargeError{What: "the patched file", Size: int64(len(out)), Max: MaxWriteBytes}
	}
	if _, err := t.ws.writeAtomic(path, out); err != nil {
		return "", t.ws.refused(ctx, c, fmt.Errorf("patch %s: %w", a.Path, err))
	}
	first := bytes.Count(data[:at], []byte("\n")) + 1
	return fmt.Sprintf("patched %s: replaced lines %d-%d (%d lines) with %d lines", a.Path, first,
		first+max(lineCount(a.Old), 1)-1, lineCount(a.Old), lineCount(a.New)), nil
}

// readSmall reads a regular text file of at most MaxWriteBytes.
func (ws *workspace) readSmall(path string) ([]byte, error) {
	f, size, err := ws.openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > MaxWriteBytes {
		return nil, &TooLargeError{What: "the file", Size: size, Max: MaxWriteBytes}
	}
	data := make([]byte, size)
	// A file that shrank since the stat is read as far as it now goes; one
	// emptied since is io.EOF. (A zero size reads nothing, without error.)
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	if isBinary(data[:min(n, sniffBytes)]) {
		return nil, errors.New("binary file; patch edits text files only")
	}
	return data[:n], nil
}

// nearMiss hints at why old was not found: it matches when leading and
// trailing whitespace of each line is ignored, or its first line occurs.
func nearMiss(data []byte, old string) string {
	norm := func(s string) string {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimSpace(l)
		}
		return strings.Join(lines, "\n")
	}
	if strings.Contains(norm(string(data)), norm(old)) {
		return "; it does match if indentation and trailing spaces are ignored: copy the text exactly as read_file shows it"
	}
	if first := strings.TrimSpace(strings.SplitN(old, "\n", 2)[0]); first != "" && bytes.Contains(data, []byte(first)) {
		return fmt.Sprintf("; its first line %q occurs, so the lines after it differ", first)
	}
	return ""
}
